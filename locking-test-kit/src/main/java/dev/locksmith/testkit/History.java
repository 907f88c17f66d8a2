package dev.locksmith.testkit;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * A recorded history of critical sections, checked against a mutex model: no two sections overlap,
 * and fencing tokens increase with start time.
 *
 * @param sections the sections, sorted by start time
 * @param violations what the check found wrong, empty when the history is a valid mutex history
 */
public record History(List<CriticalSection> sections, List<String> violations) {

  /**
   * Sorts and checks sections.
   *
   * @param recorded every recorded section
   * @return the checked history
   */
  public static History check(List<CriticalSection> recorded) {
    List<CriticalSection> sorted = new ArrayList<>(recorded);
    sorted.sort(Comparator.comparingLong(CriticalSection::startNanos));
    List<String> violations = new ArrayList<>();
    for (int i = 1; i < sorted.size(); i++) {
      CriticalSection before = sorted.get(i - 1);
      CriticalSection after = sorted.get(i);
      if (before.endNanos() > after.startNanos()) {
        violations.add("overlap: " + before.toLine() + " ends after " + after.toLine() + " starts");
      }
      if (before.fencingToken() >= after.fencingToken()) {
        violations.add(
            "fencing token did not increase: " + before.toLine() + " then " + after.toLine());
      }
    }
    return new History(List.copyOf(sorted), List.copyOf(violations));
  }

  /**
   * How many distinct processes ran sections.
   *
   * @return how many distinct processes ran sections
   */
  public long processes() {
    return sections.stream().mapToLong(CriticalSection::pid).distinct().count();
  }
}
