package dev.locksmith.cli.demo;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * What a demo run proved, from every worker's events and the ledger's final value.
 *
 * @param sections critical sections entered
 * @param written writes the ledger accepted
 * @param refused late writes refused by fencing
 * @param overlaps pairs of accepted sections that overlapped in time
 * @param lostUpdates accepted writes missing from the ledger's final value (a worker killed between
 *     its write and its log line leaves a write the events miss; that is not counted)
 * @param tokenViolations grants whose fencing token did not increase with acquisition order
 * @param failedWorkers workers that exited with an error, not counting one killed on purpose
 * @param handOffs gaps between one accepted section's release and the next one's acquisition, in
 *     nanoseconds, sorted
 */
record Verdict(
    int sections,
    int written,
    int refused,
    int overlaps,
    long lostUpdates,
    int tokenViolations,
    int failedWorkers,
    List<Long> handOffs) {

  static Verdict of(List<DemoEvent> events, long ledgerValue, int failedWorkers) {
    List<DemoEvent> sorted = new ArrayList<>(events);
    sorted.sort(Comparator.comparingLong(DemoEvent::nanos));
    Map<Long, Section> byToken = new HashMap<>();
    List<Section> order = new ArrayList<>();
    for (DemoEvent e : sorted) {
      Section s = byToken.computeIfAbsent(e.token(), t -> new Section());
      switch (e.kind()) {
        case "acquired" -> {
          s.acquired = e.nanos();
          order.add(s);
          s.token = e.token();
        }
        case "written" -> {
          s.written = true;
          s.writtenAt = e.nanos();
        }
        case "refused" -> s.refused = true;
        case "released" -> s.released = e.nanos();
        default -> {}
      }
    }
    int tokenViolations = 0;
    for (int i = 1; i < order.size(); i++) {
      if (order.get(i).token <= order.get(i - 1).token) {
        tokenViolations++;
      }
    }
    List<Section> accepted = order.stream().filter(s -> s.written).toList();
    int overlaps = 0;
    List<Long> handOffs = new ArrayList<>();
    for (int i = 1; i < accepted.size(); i++) {
      Section before = accepted.get(i - 1);
      Section after = accepted.get(i);
      if (before.writtenAt > after.acquired) {
        overlaps++;
      }
      if (before.released > 0 && after.acquired >= before.released) {
        handOffs.add(after.acquired - before.released);
      }
    }
    handOffs.sort(null);
    int refused = (int) order.stream().filter(s -> s.refused).count();
    return new Verdict(
        order.size(),
        accepted.size(),
        refused,
        overlaps,
        Math.max(0, accepted.size() - ledgerValue),
        tokenViolations,
        failedWorkers,
        handOffs);
  }

  boolean passed() {
    return sections > 0
        && overlaps == 0
        && lostUpdates == 0
        && tokenViolations == 0
        && failedWorkers == 0;
  }

  String percentile(double p) {
    if (handOffs.isEmpty()) {
      return "n/a";
    }
    long nanos =
        handOffs.get(Math.min(handOffs.size() - 1, (int) Math.ceil(p * handOffs.size()) - 1));
    return String.format("%.2f ms", nanos / 1e6);
  }

  private static final class Section {
    long token;
    long acquired;
    long writtenAt;
    long released;
    boolean written;
    boolean refused;
  }
}
