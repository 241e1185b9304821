#!/bin/sh
# Our CUDA kernels keep their parameters and locals in registers, in the PTX
# the build made (clang's by default, nvcc's with --enable-cuda-nvcc):
#
#   scripts/check-ptx.sh BUILDDIR
#
# ptxas (the CUDA toolkit's; $PTXAS, else on PATH, else /usr/local/cuda/bin)
# assembles the PTX of each .cu file of ours (scripts/our-files.sh) for
# sm_90 and reports each function's stack frame.  Any stack frame fails:
# clang copies a kernel's whole parameter block to local memory, in every
# thread, when one of its arrays is indexed by a value known only at run
# time, which made the tensor-to-frame kernel 40 % slower on an H200.
# No GPU is needed.  Fails too when a file has no kernel (nothing checked).
set -u
builddir=${1:?usage: check-ptx.sh BUILDDIR}
top=$(cd "$(dirname "$0")/.." && pwd)
arch=sm_90

ptxas=${PTXAS:-$(command -v ptxas || echo /usr/local/cuda/bin/ptxas)}
[ -x "$ptxas" ] || { echo "check-ptx: no ptxas (the CUDA toolkit's; set PTXAS)" >&2; exit 1; }

failed=0 checked=0
for cu in $("$top/scripts/our-files.sh" | grep '\.cu$'); do
    ptx=$builddir/${cu%.cu}.ptx
    checked=$((checked + 1))
    [ -f "$ptx" ] || { echo "check-ptx: $ptx missing (build first)" >&2; failed=1; continue; }
    report=$("$ptxas" -arch=$arch -v -o /dev/null "$ptx" 2>&1) ||
        { echo "check-ptx: ptxas failed on $ptx:" >&2; echo "$report" >&2; failed=1; continue; }
    # ptxas -v: "Compiling entry function 'NAME'" or "Function properties
    # for NAME", then "N bytes stack frame, ..." for that function
    result=$(echo "$report" | awk '
        /Compiling entry function/ { name = $0; sub(/.*function ./, "", name); sub(/. for .*/, "", name); kernels++ }
        /Function properties for/  { name = $0; sub(/.*properties for /, "", name) }
        /bytes stack frame/ { n = $0; sub(/^[^0-9]*/, "", n); sub(/ .*/, "", n)
                              if (n + 0 > 0) { print "  " name ": " n " bytes stack frame"; bad = 1 } }
        END { print "kernels " kernels + 0; exit bad }')
    status=$?
    kernels=$(echo "$result" | sed -n 's/^kernels //p')
    if [ "$kernels" -eq 0 ]; then
        echo "check-ptx: no kernel in $ptx" >&2; failed=1
    elif [ $status -ne 0 ]; then
        echo "check-ptx: $cu: functions with a stack frame ($arch):" >&2
        echo "$result" | grep -v '^kernels ' >&2
        failed=1
    else
        echo "check-ptx: $cu: $kernels kernels, no stack frame ($arch)"
    fi
done
[ $checked -gt 0 ] || { echo "check-ptx: no .cu file of ours" >&2; exit 1; }
exit $failed
