#!/usr/bin/env bash
# The seal: checks a compiled student file before anything of it runs.
#
#   seal.sh OBJECT API_FILE LAB
#
# OBJECT is the student file compiled alone (a .o); API_FILE lists, one a
# line, the functions the lab's header declares (made with gcc -aux-info).
# The object may define only those functions (and static ones), must have
# no constructors or destructors, may call only what the allow-list below
# names (plus the lab's own functions), and holds no raw system call.
# Exit 0 sealed; 1 with one line per violation on stdout, naming it.
set -u
obj=$1 api=$2 lab=$3
file=${obj##*/}
file=${file%.o}.c
LC_ALL=C
export LC_ALL

# What a correct solution of any lab may call: libevent's loop, events,
# buffers and HTTP; the suite's helpers (common/); memory, strings,
# formatting, sorting, math, time; threads, locks, atomics; and the
# descriptors of a pipe or socketpair it made (a doorbell).  Nothing that
# starts, signals or controls processes, opens files, maps memory,
# jumps (setjmp/longjmp), loads code or makes system calls directly.
allowed_globs=(
	'event_*' 'evutil_*' 'evbuffer_*' 'evhttp_*' 'bufferevent_*' 'evthread_*'
	'clock_now_ns' 'clock_monotonic_ns' 'clock_sleep_ns' 'clock_spin_ns'
	'trace_*' 'lag_*' 'hashwork_*' 'evbase_*' 'save_client_*' 'hash_job_*'
	'malloc' 'calloc' 'realloc' 'reallocarray' 'free' 'aligned_alloc' 'posix_memalign'
	'mem*' 'str*' 'wcs*' '__str*' '__mem*' '__rawmemchr' 'stp*'
	'printf' 'fprintf' 'sprintf' 'snprintf' 'vprintf' 'vfprintf' 'vsnprintf'
	'vsprintf' 'puts' 'fputs' 'fputc' 'putc' 'putchar' 'fwrite' 'fflush' 'perror'
	'stdout' 'stderr' '__*printf_chk' '__*_chk' '__stack_chk_fail'
	'__assert_fail' 'abort' '__errno_location' '__ctype_*'
	'is*' 'to*' 'ato*' 'qsort' 'bsearch' 'abs' 'labs' 'llabs' 'div' 'ldiv'
	'sqrt*' 'floor*' 'ceil*' 'round*' 'lround*' 'llround*' 'trunc*' 'fabs*'
	'fmin*' 'fmax*' 'pow*' 'exp*' 'log*' 'fmod*' 'nearbyint*' 'rint*' 'lrint*'
	'clock_gettime' 'clock_nanosleep' 'nanosleep' 'usleep' 'sched_yield' 'time'
	'gettimeofday' 'getenv'
	'pthread_*' 'sem_init' 'sem_destroy' 'sem_wait' 'sem_trywait'
	'sem_timedwait' 'sem_post' 'sem_getvalue' 'thrd_*' 'mtx_*' 'cnd_*' 'call_once'
	'__atomic_*' '__sync_*' 'atomic_*'
	'pipe' 'pipe2' 'socketpair' 'eventfd' 'read' 'write' 'close' 'poll' 'fcntl'
	'_GLOBAL_OFFSET_TABLE_'
)
# ...except these, which the globs above would let through.
denied=(pthread_kill pthread_sigqueue pthread_atfork pthread_exit strfry
	memfd_create __stack_chk_guard)

# The header's names, read once (a grep per symbol was most of the seal's
# forks, and every make grade seals the student object).
# (No file: nothing is declared, and every definition is refused.)
declare -A in_api=()
if [ -r "$api" ]; then
	while IFS= read -r line; do
		[ -n "$line" ] && in_api[$line]=1
	done <"$api"
fi
declared() { [ -n "${in_api[$1]:-}" ]; }
is_allowed() {
	local s=$1 g
	for g in "${denied[@]}"; do [ "$s" = "$g" ] && return 1; done
	declared "$s" && return 0
	for g in "${allowed_globs[@]}"; do
		# shellcheck disable=SC2053
		[[ $s == $g ]] && return 0
	done
	return 1
}

bad=0
say() { echo "seal: $file $*"; bad=1; }

# The object as lines, from one readelf and one awk (a process per
# question was most of the seal's cost, and every make grade seals):
# "type TYPE", "section NAME FLAGS" for each section, "defined TYPE NAME"
# for each global or weak symbol it defines, "undefined NAME" for each it
# uses.  (readelf, not nm: nm loads its plugins each time.)
describe() {
	readelf -hSsW "$obj" 2>/dev/null | awk '
		$1 == "Type:" { print "type", $2 }
		/^ *\[ *[0-9]+\] / {
			sub(/^ *\[ *[0-9]+\] */, "")
			print "section", $1, (NF == 10 ? $7 : "-")
		}
		$1 ~ /^[0-9]+:$/ && NF >= 8 && $5 != "LOCAL" {
			if ($7 == "UND") print "undefined", $8
			else print "defined", $4, $8
		}'
}
elf=$(describe)
if [[ $'\n'$elf$'\n' != *$'\n'"type REL"$'\n'* ]]; then
	echo "seal: $obj is not a compiled object file"
	exit 1
fi

# Sections: no constructors/destructors, code only in .text.
while read -r kind name flags; do
	[ "$kind" = section ] || continue
	case $name in
	.init_array* | .fini_array* | .preinit_array* | .ctors* | .dtors* | .init | .fini)
		say "has a constructor or destructor ($name): code that would run before the tests" ;;
	esac
	if [[ $flags == *X* ]] && [[ $name != .text && $name != .text.* ]]; then
		say "has executable code outside .text (section $name)"
	fi
done <<<"$elf"

# Defined global symbols: only the lab header's functions.
while read -r kind type name; do
	[ "$kind" = defined ] || continue
	case $type in
	IFUNC | GNU_IFUNC) say "defines $name as an indirect function (ifunc)"; continue ;;
	esac
	declared "$name" ||
		say "defines $name, which its lab header does not declare"
done <<<"$elf"

# Undefined symbols: only the allow-list.
while read -r kind name; do
	[ "$kind" = undefined ] || continue
	is_allowed "$name" ||
		say "calls or uses $name, which no lab allows"
done <<<"$elf"

# Raw system calls: an instruction needs no symbol.
if objdump -d --no-show-raw-insn "$obj" | grep -Eq $'\t(syscall|sysenter|int +\\$0x80)( |$)'; then
	say "contains a raw system call instruction (syscall/sysenter/int 0x80)"
fi
if [ $bad = 1 ]; then
	echo "(a student file may define only its lab header's functions, and static ones;"
	echo " it may call libevent, the suite's helpers, libc memory/string/format/math/time"
	echo " functions, threads and pipes, but nothing that starts, signals or controls"
	echo " processes, opens files, or makes system calls: common/grade/seal.sh)"
fi
exit $bad
