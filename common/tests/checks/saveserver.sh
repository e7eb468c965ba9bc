#!/usr/bin/env bash
# Checks of the save server as a program (run by make check; prints PASS/FAIL
# lines): its command line, a session by hand with curl, clean stops on
# SIGTERM and SIGINT, loopback only, and no leak or memory error under
# AddressSanitizer (server, client and saveproc) and valgrind (if installed).
# set -u without -e: a check that fails says FAIL and the next one still runs.
set -u
B=${BUILD:-build}
S=$B/bin/saveserver
T=$(mktemp -d "${TMP:-${TMPDIR:-/tmp}}/saveserver.XXXXXX")
DIGEST=ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad
OTHER=248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1
PID=
PORT=
trap 'rm -rf "$T"' EXIT

pass() { echo "PASS saveserver: $*"; }
fail() { echo "FAIL saveserver: $*"; }
check() {
	local what=$1
	shift
	if "$@"; then pass "$what"; else fail "$what"; fi
}

if [ ! -x "$S" ]; then
	fail "$S is not built (make BUILD=$B)"
	exit 0
fi

# ---- the command line ------------------------------------------------------
help_ok() { "$S" --help >"$T/help" 2>&1 && grep -q '^usage: saveserver' "$T/help"; }
check "--help prints the usage and exits 0" help_ok

bad_args_ok() {
	# shellcheck disable=SC2086  # word splitting is the point
	"$S" $1 >/dev/null 2>"$T/err"
	[ $? = 2 ] && grep -q '^saveserver: ' "$T/err" && grep -q '^usage: saveserver' "$T/err"
}
for args in "--delay-ms abc" "--port 70000" "--max-in-flight 0" "--bogus" \
	"surplus" "--log" "--fail-ids 3," "--fail-ids 5-2" "--fail-ids x" \
	"--fail-status 200" "--close-after -1" "--exit-after x" "--jitter-ms 600001" \
	"--seed -3" "--request-timeout-ms 0"; do
	check "'saveserver $args' names the problem, prints the usage, exits 2" \
		bad_args_ok "$args"
done

# ---- start and stop --------------------------------------------------------
# start_server CMD...: runs it in the background; sets PID and PORT.
start_server() {
	# Emptied here, not by the child's redirection: that one runs after
	# the fork, and the loop below could read the last server's line.
	: >"$T/out"
	"$@" >"$T/out" 2>"$T/stderr" &
	PID=$!
	for _ in $(seq 600); do   # 30 s: valgrind on a loaded machine is slow
		grep -q '^listening' "$T/out" 2>/dev/null && break
		sleep 0.05
	done
	PORT=$(sed -n 's/^listening 127\.0\.0\.1:\([0-9][0-9]*\)$/\1/p' "$T/out")
	[ -n "$PORT" ]
}

# stop_server SIG: sends it and waits up to 10 s for the exit (then
# SIGKILL); sets RC to the exit status.  An exited child is a zombie
# (state Z) or, once bash has reaped it, gone from /proc; wait still
# reports its status.
RC=
stop_server() {
	local state
	kill -"$1" "$PID" 2>/dev/null   # (it may have exited on its own)
	for _ in $(seq 200); do
		state=$(awk '{ print $3 }' "/proc/$PID/stat" 2>/dev/null)
		[ -z "$state" ] || [ "$state" = Z ] && break
		sleep 0.05
	done
	[ -z "$state" ] || [ "$state" = Z ] || kill -9 "$PID"
	wait "$PID"
	RC=$?
}

url() { echo "http://127.0.0.1:$PORT$1"; }
# http_code METHOD PATH [BODY]: prints the status; the body goes to $T/body.
http_code() {
	local args=(-s -o "$T/body" -w '%{http_code}' -X "$1" --max-time 5)
	[ $# -ge 3 ] && args+=(--data "$3")
	curl "${args[@]}" "$(url "$2")"
}

# The listening sockets of $PID, from /proc: every one must be 127.0.0.1.
loopback_only() {
	local inodes n=0 addr
	inodes=$(find "/proc/$PID/fd" -lname 'socket:*' -printf '%l\n' 2>/dev/null |
		sed 's/socket:\[\([0-9]*\)\]/\1/')
	for i in $inodes; do
		addr=$(awk -v i="$i" '$10 == i && $4 == "0A" { print $2 }' /proc/net/tcp /proc/net/tcp6)
		[ -z "$addr" ] && continue
		n=$((n + 1))
		[ "${addr%:*}" = 0100007F ] || return 1
	done
	[ $n = 1 ]
}

stats_ok() {
	curl -s --max-time 5 "$(url /stats)" >"$T/stats" && python3 - "$T/stats" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
need = ["received", "stored", "in_flight", "max_in_flight", "max_queued", "rejected"]
assert all(k in s for k in need), s
assert (s["received"], s["stored"], s["conflicts"]) == (2, 1, 1), s
PY
}

log_ok() {
	[ "$(wc -l <"$T/log")" = 1 ] &&
		grep -Eq "^42 $DIGEST [0-9]+ [0-9]+\$" "$T/log" &&
		awk '{ exit !($4 - $3 >= 20000000) }' "$T/log"
}

if start_server "$S" --delay-ms 20 --log "$T/log"; then
	pass "starts and prints 'listening 127.0.0.1:PORT'"
	check "listens on 127.0.0.1 only" loopback_only
	check "curl -d 'id=42&digest=...' /save: 201" \
		test "$(http_code POST /save "id=42&digest=$DIGEST")" = 201
	check "GET /saves/42: 200 with the digest" \
		test "$(http_code GET /saves/42)/$(cat "$T/body")" = "200/$DIGEST"
	check "GET /saves/43: 404" test "$(http_code GET /saves/43)" = 404
	check "a second save of id 42 with another digest: 409" \
		test "$(http_code POST /save "id=42&digest=$OTHER")" = 409
	check "GET /stats: JSON with the documented counters" stats_ok
	stop_server TERM
	check "SIGTERM: exits 0" test "$RC" = 0
	check "the log has 'id digest received_ns answered_ns', 20 ms apart" log_ok
else
	fail "did not print its ready line: $(cat "$T/stderr")"
	kill -9 "$PID" 2>/dev/null
fi

if start_server "$S"; then
	stop_server INT
	check "SIGINT: exits 0" test "$RC" = 0
else
	fail "did not start a second time"
fi

# ---- faults injected on purpose ----------------------------------------------
save_code() { http_code POST /save "id=$1&digest=$DIGEST"; }
if start_server "$S" --delay-ms 5 --fail-ids 2,5-6 --fail-status 503 --close-after 4; then
	check "--fail-ids 2,5-6 --fail-status 503: id 1 gets 201, id 2 gets 503" \
		test "$(save_code 1)/$(save_code 2)" = 201/503
	check "--fail-ids: the failed save is not stored (GET /saves/2: 404)" \
		test "$(http_code GET /saves/2)" = 404
	check "--fail-ids: a range fails too (id 6: 503)" test "$(save_code 6)" = 503
	check "--close-after 4: the 4th save is answered (201)" test "$(save_code 4)" = 201
	check "--close-after 4: the 5th is closed unanswered (curl: empty reply)" \
		test "$(save_code 7)" = 000
	check "GET /stats counts failed 2 and dropped 1" \
		grep -q '"failed": 2, "dropped": 1,' <(curl -s --max-time 5 "$(url /stats)")
	stop_server TERM
	check "after faults, SIGTERM still exits 0" test "$RC" = 0
else
	fail "did not start with fault options: $(cat "$T/stderr")"
fi

if start_server "$S" --delay-ms 0 --exit-after 1; then
	check "--exit-after 1: the first save is answered (201)" test "$(save_code 1)" = 201
	save_code 2 >/dev/null
	stop_server 0   # signal 0: only waits for the exit it made itself
	check "--exit-after 1: the 2nd save makes it exit 0 and free its port" \
		test "$RC/$(save_code 3)" = 0/000
else
	fail "did not start with --exit-after: $(cat "$T/stderr")"
fi

jittered_ok() {
	awk '{ w = ($4 - $3) / 1e6; if (w < 5 || w > 1000) bad = 1;
	       lo = (NR == 1 || w < lo) ? w : lo; hi = w > hi ? w : hi }
	     END { exit !(NR == 8 && !bad && hi - lo > 5) }' "$T/jlog"
}
if start_server "$S" --delay-ms 5 --jitter-ms 30 --seed 3 --max-in-flight 20 --log "$T/jlog"; then
	curls=()
	for i in 1 2 3 4 5 6 7 8; do
		save_code "$i" >/dev/null &
		curls+=($!)
	done
	wait "${curls[@]}"
	stop_server TERM
	check "--jitter-ms 30: 8 saves each wait 5 ms or more, spread over 5 ms" jittered_ok
else
	fail "did not start with --jitter-ms: $(cat "$T/stderr")"
fi

# ---- out of descriptors ---------------------------------------------------------
# 100 idle connections against a server limited to 64 descriptors: accept()
# fails with EMFILE.  It must pause accepting (not spin on the listening
# socket: the old server burned ~100% CPU printing a warning per turn), say
# so once, and serve again once the connections are gone.
cpu_ticks() { awk '{ print $14 + $15 }' "/proc/$PID/stat"; }
hold_connections() {
	python3 - "$PORT" <<'PY'
import socket, sys, time
conns = [socket.create_connection(("127.0.0.1", int(sys.argv[1]))) for _ in range(100)]
time.sleep(1.5)
for c in conns:
    c.close()
PY
}
if start_server bash -c 'ulimit -n 64 && exec "$0" --idle-timeout-ms 5000' "$S"; then
	before=$(cpu_ticks)
	hold_connections
	used=$(( $(cpu_ticks) - before ))
	# Measured on the loaded 2-core VM: the old server, spinning, 52 ticks
	# (and 162,406 warning lines) in these 1.5 s; pausing 100 ms at a time,
	# 0.  Bound 20 ticks (0.2 s of CPU).
	check "EMFILE: 100 idle connections, ulimit -n 64: the server pauses accepting ($used ticks of CPU in 1.5 s, < 20)" \
		test "$used" -lt 20
	# Once per episode: when the client lets go, the backlog's connections
	# may be accepted before the held ones are seen closed, and a second
	# short episode is logged (seen once in CI).  A server that logs per
	# attempt prints thousands of lines.
	check "EMFILE: logged once per pause ($(grep -c 'pausing new connections' "$T/stderr") lines, <= 3), not per attempt" \
		test "$(grep -c 'pausing new connections' "$T/stderr")" -le 3
	check "EMFILE: once the connections are gone, a save is stored (201)" \
		test "$(save_code 1)" = 201
	stop_server TERM
	check "EMFILE: SIGTERM still exits 0" test "$RC" = 0
else
	fail "did not start under ulimit -n 64: $(cat "$T/stderr")"
fi

# ---- memory: a session with held saves, bad input, and a client that leaves
session() {
	http_code POST /save "id=1&digest=$DIGEST" >/dev/null
	http_code POST /save "id=x" >/dev/null
	http_code DELETE /save >/dev/null
	curl -s --max-time 0.05 --data "id=2&digest=$DIGEST" "$(url /save)" >/dev/null
	curl -s --max-time 5 --data "id=3&digest=$DIGEST" "$(url /save)" >/dev/null &
	sleep 0.1   # id 3 is held when SIGTERM comes: freed, never answered
}

asan_server=$B/san-address/bin/saveserver
if make -s BUILD="$B" SAN=address "$asan_server" "$B/san-address/test/test_save" \
	"$B/san-address/test/test_save_hostile" "$B/san-address/test/test_save_faults" \
	>"$T/asan-build" 2>&1; then
	if start_server "$asan_server" --delay-ms 200; then
		session
		stop_server TERM
		wait
		check "under ASan: a session ends with exit 0 and no report" \
			test "$RC/$(grep -c 'Sanitizer' "$T/stderr")" = 0/0
	else
		fail "under ASan: did not start: $(cat "$T/stderr")"
	fi
	if start_server "$asan_server" --delay-ms 300 --fail-ids 1 --close-after 2 \
		--exit-after 3; then
		save_code 1 >/dev/null     # held 300 ms, then 500
		save_code 2 >/dev/null &   # held when the server exits
		sleep 0.1
		save_code 3 >/dev/null     # its connection dropped
		save_code 4 >/dev/null     # the server exits
		stop_server 0
		wait
		check "under ASan: --fail-ids, --close-after, --exit-after: exit 0, no report" \
			test "$RC/$(grep -c 'Sanitizer' "$T/stderr")" = 0/0
	else
		fail "under ASan: did not start with faults: $(cat "$T/stderr")"
	fi
	# Side by side, reported in order: they mostly sleep (8 s, 3 s and
	# 1 s one after another).
	asan_tests=(test_save test_save_hostile test_save_faults)
	asan_pids=()
	for t in "${asan_tests[@]}"; do
		{ env YIELDLAB_TIMEOUT_SCALE=3 "$B/san-address/test/$t" >"$T/$t.log" 2>&1
		  echo $? >"$T/$t.rc"; } &
		asan_pids+=($!)
	done
	wait "${asan_pids[@]}"
	asan_test_ok() { [ "$(cat "$T/$1.rc")" = 0 ] || { tail -20 "$T/$1.log"; return 1; }; }
	for t in "${asan_tests[@]}"; do
		check "under ASan: $t (client, saveproc, server) passes with no report" \
			asan_test_ok "$t"
	done
else
	tail -20 "$T/asan-build"
	fail "the ASan build of saveserver failed"
fi

if command -v valgrind >/dev/null 2>&1; then
	if start_server valgrind -q --leak-check=full --show-leak-kinds=all \
		--errors-for-leak-kinds=all --error-exitcode=99 "$S" --delay-ms 200; then
		session
		stop_server TERM
		wait
		check "under valgrind: every block freed, no memory error" test "$RC" = 0
	else
		fail "under valgrind: did not start: $(cat "$T/stderr" "$T/out")"
	fi
else
	echo "(valgrind is not installed: its check is skipped; ASan covered leaks)"
fi
