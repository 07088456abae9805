#!/bin/sh
# Builds the libFuzzer binary from TapgridCore's sources and runs targets for a set time.
#   Fuzz/fuzz.sh build                      build .build/fuzz/tapgrid-fuzz (when a source changed)
#   Fuzz/fuzz.sh run SECONDS [TARGET...]    run each target (default: all four) for SECONDS
#   FUZZ_RUNS=N Fuzz/fuzz.sh run SECONDS ...  stop each target after N executions instead, if sooner
# Each run starts from the seed corpus in Fuzz/corpus/TARGET plus what earlier runs found
# (.build/fuzz/corpus/TARGET, not committed); a crash is saved as .build/fuzz/crashes/TARGET-*
# and stops the script with exit 1. Prints one line per target: executions, rate, corpus, and
# the peak RSS libFuzzer reports.
set -eu
cd "$(dirname "$0")/.."
# A failed check is a Swift fatalError: without the Swift backtracer (which reads memory that
# AddressSanitizer then reports as a second, unrelated error) the log shows only the real one.
export SWIFT_BACKTRACE=enable=no
OUT=.build/fuzz
BIN=$OUT/tapgrid-fuzz
TARGETS="config request touch eventlog mqtt panel"

build() {
    mkdir -p $OUT
    sources=$(find Sources/TapgridCore -name '*.swift' | sort)
    if [ -x $BIN ] && [ -z "$(find $sources Fuzz/FuzzTargets.swift -newer $BIN)" ]; then return; fi
    echo "building $BIN (swiftc -sanitize=fuzzer,address, TapgridCore's sources and Fuzz/FuzzTargets.swift)"
    # One module named TapgridCore: the targets see its internals; -parse-as-library because the
    # fuzzer supplies main. ld.gold's "Cannot export local symbol __asan_*" warnings are harmless.
    rm -f $BIN
    swiftc -sanitize=fuzzer,address -parse-as-library -O -g -module-name TapgridCore \
        $sources Fuzz/FuzzTargets.swift -o $BIN 2>&1 | grep -v "Cannot export local symbol" || true
    [ -x $BIN ]
}

run() {
    seconds=$1; shift
    [ $# -gt 0 ] || set -- $TARGETS
    build
    status=0
    for target in "$@"; do
        mkdir -p $OUT/corpus/$target $OUT/crashes
        log=$OUT/$target.log
        # Inputs as long as a target needs: a config with a few layouts, one request line, 128
        # contact events, a few event-log lines. Longer ones only slow the search down.
        case $target in config) maxlen=8192 ;; request) maxlen=1024 ;; touch) maxlen=512 ;; mqtt) maxlen=4096 ;; *) maxlen=4096 ;; esac
        # -timeout: an input taking 60 s is a hang (each takes milliseconds; a lower limit also
        # fired, falsely, for inputs that were only starved of CPU by builds beside a niced run);
        # -rss_limit_mb: a leak or a blow-up.
        if TAPGRID_FUZZ_TARGET=$target $BIN -max_total_time="$seconds" -runs="${FUZZ_RUNS:--1}" -timeout=60 -rss_limit_mb=2048 -max_len=$maxlen \
            -dict=Fuzz/tapgrid.dict -print_final_stats=1 -artifact_prefix=$OUT/crashes/$target- \
            $OUT/corpus/$target Fuzz/corpus/$target >"$log" 2>&1; then
            result=ok
        else
            result="CRASH (see $log and $OUT/crashes/)"
            status=1
        fi
        execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
        rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log")
        took=$(sed -n 's/^Done [0-9]* runs in \([0-9]*\) second.*/\1/p' "$log")
        rss=$(sed -n 's/^stat::peak_rss_mb: *//p' "$log")
        corpus=$(ls $OUT/corpus/$target | wc -l)
        printf '%-9s %s executions in %s s (%s/s), corpus %s, peak RSS %s MB: %s\n' \
            "$target" "${execs:-?}" "${took:-$seconds}" "${rate:-?}" "$corpus" "${rss:-?}" "$result"
    done
    return $status
}

case "${1:-}" in
    build) build ;;
    run) shift; run "$@" ;;
    *) echo "usage: $0 build | run SECONDS [config|request|touch|eventlog|mqtt|panel ...]" >&2; exit 64 ;;
esac
