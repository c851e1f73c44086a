# ctest: labels=cli timeout=600 env=@cli serial
# Counts on the command line (issue 29): a negative number, a fraction, an exponent or a word is
# refused as what it is, one exact line, exit 2, nothing written; never read as something else
# (CLI11 would read -1 into an unsigned option as 2^64 - 1, and "-3" was a range from '' to 3).
source "$(dirname "$0")/../lib.sh"
R=(--out "$T/r.json")
whole() { echo "allocstress: error: $1: '$2' is not a whole number >= 0 (see allocstress $3 --help)"; }
option() { echo "allocstress: error: $1 '$2' is not a whole number (accepted: 0, 1, 2, ... up to 2^64 - 1)"; }
threads() { echo "allocstress: error: invalid --threads '$1': '$1' is not a positive whole number (accepted: 1,2,4 or 1-4)"; }

expect_exact 2 "$(threads -3)" -- "$ALLOCSTRESS" matrix "${R[@]}" --threads -3
expect_exact 2 "$(threads 2.5)" -- "$ALLOCSTRESS" matrix "${R[@]}" --threads 2.5
expect_exact 2 "$(threads 1e3)" -- "$ALLOCSTRESS" matrix "${R[@]}" --threads 1e3
expect_exact 2 "$(threads 2-)" -- "$ALLOCSTRESS" matrix "${R[@]}" --threads 2-
expect_exact 2 "$(threads -3)" -- "$ALLOCSTRESS" run --allocator system --threads -3
expect_exact 2 "$(option --iterations 1e3)" -- "$ALLOCSTRESS" matrix "${R[@]}" --iterations 1e3
expect_exact 2 "$(option --iterations -3)" -- "$ALLOCSTRESS" run --allocator system --iterations -3
expect_exact 2 "$(option --slots 2.5)" -- "$ALLOCSTRESS" matrix "${R[@]}" --slots 2.5
expect_exact 2 "$(option --seed -1)" -- "$ALLOCSTRESS" run --allocator system --seed -1
expect_exact 2 "$(whole --reps -1 matrix)" -- "$ALLOCSTRESS" matrix "${R[@]}" --reps -1
expect_exact 2 "$(whole --reps 2.5 matrix)" -- "$ALLOCSTRESS" matrix "${R[@]}" --reps 2.5
expect_exact 2 "$(whole --reps 1e3 bench)" -- "$ALLOCSTRESS" bench --reps 1e3 -- /bin/true
expect_exact 2 "$(whole --warmup -1 matrix)" -- "$ALLOCSTRESS" matrix "${R[@]}" --warmup -1
expect_exact 2 "$(whole --counts-iterations -5 matrix)" -- "$ALLOCSTRESS" matrix "${R[@]}" --counts-iterations -5
expect_exact 2 "$(whole --sample-every 0.5 run)" -- "$ALLOCSTRESS" run --allocator system --profile --sample-every 0.5
expect_exact 2 "$(whole --processes -1 misuse)" -- "$ALLOCSTRESS" misuse --processes -1
expect_exact 2 "$(whole --threads -3 fit)" -- "$ALLOCSTRESS" fit "$T/none.ast" -o "$T/fit.json" --threads -3
# These two were CLI11's "Could not convert: --reps = -1".
expect_exact 2 "$(whole --reps -1 programs)" -- "$ALLOCSTRESS" programs --reps -1
expect_exact 2 "$(whole --repeats -5 calibrate)" -- "$ALLOCSTRESS" calibrate --costs --repeats -5
expect_exact 2 "allocstress: error: --timeout must be a number of seconds in (0, 1000000]" -- "$ALLOCSTRESS" matrix "${R[@]}" --timeout -3
finish
