# make bench: ns per link of the SHA-256 chain the hashing labs run, through
# each C kernel and through Python's hashlib as the source experiment does;
# every kernel ends on the same digest.
# inputs: bench_hash.csv
load 'plots/style.gp'
f = data_dir.'/bench_hash.csv'
set title "One link of a SHA-256 hash chain (32 bytes in, 32 out)\n{/*0.8 grey: the deprecated low-level floor; green: the labs' kernel; red: what it avoids; amber: Python's hashlib}"
set ylabel 'ns per link'
set yrange [0:*]
set boxwidth 0.6
set xtics noenhanced
# columns: kernel,links,ns_per_link,allocs_per_link,digest,rounds,ratio_to_floor,ratio_to_hashwork
colour(k) = k eq 'sha256_lowlevel' ? 0x888888 : (k eq 'hashwork_chain' ? 0x2e8b57 : \
	(k eq 'python_hashlib' ? 0xe0a000 : 0xc0392b))
name(k) = k eq 'sha256_lowlevel' ? 'SHA256_Init/Update/Final' : (k eq 'hashwork_chain' ? 'hashwork_chain (EVP)' : \
	(k eq 'python_hashlib' ? 'Python hashlib' : 'EVP_Digest one-shot'))
plot f using 0:3:(colour(strcol(1))):xtic(name(strcol(1))) with boxes lc rgb variable, \
     '' using 0:3:(sprintf('%.0f ns (%.1fx floor)', $3, $7)) with labels offset 0,0.8 font ',9'
