#!/bin/sh
# The compiler of the clang check (checks/clang.sh): clang's front end
# only.  A compile (-c) runs `clang -fsyntax-only` with the same flags, so
# every warning clang would give is given, and -Werror still fails it; the
# object it writes is empty, and so is a linked program.  clang's warnings
# come from its front end; code generation and linking are gcc's job in
# the build job, and here they would be two thirds of the time.
out=
compile=
prev=
for arg in "$@"; do
	[ "$prev" = -o ] && out=$arg
	[ "$arg" = -c ] && compile=1
	prev=$arg
done
if [ -n "$compile" ]; then
	clang -fsyntax-only "$@" || exit
fi
[ -n "$out" ] && : >"$out"
