// Package machine measures what else loaded the machine while a leaf run
// ran: the whole machine's busy CPU time, this process's, and that of the
// processes serving the benchmarked ports on this machine with their
// descendants (Ollama's `ollama runner` is a child of its server). Find
// finds the servers' processes once (the slow part), Take reads a
// Snapshot of them all at one moment (fast), Between is the CPU time
// spent between two, and Use.Other what neither this process nor the
// servers used.
//
// Linux reads /proc: /proc/stat for the machine, /proc/net/tcp and tcp6
// for the listening sockets, /proc/<pid>/fd for the processes that hold
// them, /proc/<pid>/stat for each process's parent and CPU time,
// /proc/<pid>/status for the servers' and this process's memory (VmRSS,
// VmHWM), and for the kernel's memory (VM: swap, swap-outs, memory stall)
// /proc/meminfo, /proc/vmstat and /proc/pressure/memory. macOS runs `ps -A -o pid=,ppid=,time=,rss=` (every process's CPU
// time, summed for the machine, and resident memory) and `lsof -nP -iTCP:<port> -sTCP:LISTEN -t`; that path is
// not tested on a Mac here. Elsewhere nothing is read. What could not be
// read is unknown (a nil pointer, an error), never 0.
//
// A Snapshot keeps each process (Proc) with its memory beside its CPU
// time: Snapshot.Memory is the servers' resident memory (or this
// process's, for a server in it), and RSS reads it again for the
// processes a Snapshot found, cheaply enough to sample during a run.
package machine
