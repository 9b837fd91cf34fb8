#!/bin/sh
# Runs "$@" under xvfb-run -a, retrying up to 3 times when the X server could not be used:
# xvfb-run -a races with any other xvfb-run started at the same moment (also from other
# build trees), and both then use the same display.
for attempt in 1 2 3; do
  log=$(mktemp)
  xvfb-run -a -s "-screen 0 1280x1024x24" "$@" >"$log" 2>&1
  status=$?
  cat "$log"
  if [ "$status" -eq 0 ] || ! grep -q -e "bad X server connection" -e "Xvfb failed" \
       -e "cannot open display" "$log"; then
    rm -f "$log"
    exit "$status"
  fi
  rm -f "$log"
  echo "xvfb_retry: X server problem, attempt $attempt; retrying"
  sleep 2
done
exit "$status"
