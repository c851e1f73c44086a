"""The resident memory of a process, seen from outside it: rss_sampler.py OUT.json COMMAND...

Runs COMMAND as a child (its stdout to OUT.json's `stdout` field), reads its /proc/PID/status
every millisecond while it runs (VmRSS and VmHWM, whatever process image the PID holds: allocstress
re-executes itself in place to preload an allocator), then reaps it with wait4() and keeps the
kernel's own account of its largest resident set, ru_maxrss.  Writes OUT.json:
  {exit_code, stdout, samples, max_vm_rss, max_vm_hwm, ru_maxrss, counter_slack, peak} (bytes)
peak = max(max_vm_rss, max_vm_hwm, ru_maxrss + counter_slack) bounds every resident-set size the
process had after its first sample, however short its life after its peak:
  - ru_maxrss is the high-water mark the kernel keeps at exit (the largest of its exec'd images'),
    after everything the process did; a process that resets its own mark (/proc/self/clear_refs,
    as the cell does before its measured phase) lowers what the kernel keeps for before the reset
    only, and the samples cover that;
  - but at exit the kernel takes that mark from its per-CPU RSS counters (per-CPU since Linux 6.2)
    read without summing the CPUs' parts, while /proc/PID/status sums them (since 6.16): each of
    the three resident counters (file, anon, shmem pages) can read low by up to its batch,
    max(32, 2 x CPUs) pages, on each CPU.  counter_slack = 3 x that x CPUs x the page size (768 KiB on a 2-CPU
    machine with 4 KiB pages) is the model's slack for it.  Measured on this project's VM (Linux
    6.18, 2 CPUs): ru_maxrss 36..104 KiB below the cell's own final VmHWM.
"""
import json
import os
import sys
import time


def status_kib(pid):
    fields = {}
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                key, _, value = line.partition(":")
                if key in ("VmRSS", "VmHWM"):
                    fields[key] = int(value.split()[0]) * 1024
    except (FileNotFoundError, ProcessLookupError, PermissionError):
        pass
    return fields


def main():
    out_path, argv = sys.argv[1], sys.argv[2:]
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(read_end)
        os.dup2(write_end, 1)
        os.execvp(argv[0], argv)
    os.close(write_end)
    os.set_blocking(read_end, False)
    chunks, samples, max_rss, max_hwm = [], 0, 0, 0
    while True:
        s = status_kib(pid)
        if s:  # a zombie has no Vm lines
            samples += 1
            max_rss = max(max_rss, s.get("VmRSS", 0))
            max_hwm = max(max_hwm, s.get("VmHWM", 0))
        try:
            while chunk := os.read(read_end, 65536):
                chunks.append(chunk)
        except BlockingIOError:
            pass
        done, status, usage = os.wait4(pid, os.WNOHANG)
        if done == pid:
            break
        time.sleep(0.001)
    os.set_blocking(read_end, True)
    while chunk := os.read(read_end, 65536):
        chunks.append(chunk)
    ru_maxrss = usage.ru_maxrss * 1024
    cpus = os.cpu_count() or 1
    counter_slack = 3 * max(32, 2 * cpus) * cpus * os.sysconf("SC_PAGE_SIZE")
    json.dump({"exit_code": os.waitstatus_to_exitcode(status), "stdout": b"".join(chunks).decode(), "samples": samples,
               "max_vm_rss": max_rss, "max_vm_hwm": max_hwm, "ru_maxrss": ru_maxrss, "counter_slack": counter_slack,
               "peak": max(max_rss, max_hwm, ru_maxrss + counter_slack)},
              open(out_path, "w"))


main()
