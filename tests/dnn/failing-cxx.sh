#!/bin/sh
# A C++ compiler that fails on every C++ source file with two diagnostics,
# as GCC prints them, and is the system's c++ otherwise (Inductor asks it
# for its version first): the export tool's report of a compile error
# (torch-check.sh compile-error), without a torch bug to trigger one.
for arg in "$@"; do
    case $arg in
    *.cpp)
        echo "$arg:12:5: error: 'decltype' evaluates to 'float', which is not a class or enumeration type" >&2
        echo "$arg:40:1: error: expected ';' before '}' token" >&2
        exit 1
        ;;
    esac
done
exec c++ "$@"
