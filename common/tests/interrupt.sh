# Sourced by the checks (common/tests/checks/*.sh): Ctrl-C, as a terminal
# sends it, to a command that is under way.
#
# interrupt_when LOG PATTERN DIR CMD...: runs CMD in DIR, in a session of
# its own, its output in LOG; once LOG matches PATTERN (30 s at most) and
# a second more, sends SIGINT to the whole session as Ctrl-C would; sets RC
# to CMD's exit status.  A background job of a script starts with SIGINT
# ignored: env gives CMD back the default a terminal's command has.
interrupt_when() {
	local log=$1 pattern=$2 dir=$3 bg
	shift 3
	(cd "$dir" && exec setsid env --default-signal=INT "$@") >"$log" 2>&1 &
	bg=$!
	for _ in $(seq 300); do
		grep -q -- "$pattern" "$log" 2>/dev/null && break
		sleep 0.1
	done
	sleep 1
	kill -INT -- -"$bg" 2>/dev/null
	wait "$bg"
	RC=$?
}
