package dev.locksmith.cli.demo;

/**
 * One line of a worker's event file: {@code nanos worker kind token value}.
 *
 * @param nanos when, on the host's monotonic clock (shared by the processes of one host)
 * @param worker the worker's number
 * @param kind {@code acquired}, {@code written}, {@code refused} or {@code released}
 * @param token the lease's fencing token
 * @param value the ledger value written, or read when refused
 */
record DemoEvent(long nanos, int worker, String kind, long token, long value) {

  static DemoEvent parse(String line) {
    String[] parts = line.strip().split(" ");
    return new DemoEvent(
        Long.parseLong(parts[0]),
        Integer.parseInt(parts[1]),
        parts[2],
        Long.parseLong(parts[3]),
        Long.parseLong(parts[4]));
  }

  String toLine() {
    return nanos + " " + worker + " " + kind + " " + token + " " + value + "\n";
  }
}
