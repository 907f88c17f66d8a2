package dev.locksmith.tcp.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * The heap of held leases against a plain list: after every add, remove and change of end, its
 * first and last entries are the earliest and latest ends, and each entry knows its position.
 */
class ExpiryHeapTest {
  private final ExpiryHeap heap = new ExpiryHeap();
  private final List<LockEntry> held = new ArrayList<>();

  @Test
  void firstAndLastAreTheEarliestAndLatestEndsThroughRandomChanges() {
    SplittableRandom random = new SplittableRandom(18);
    for (int step = 0; step < 5_000; step++) {
      int action = random.nextInt(10);
      if (held.isEmpty() || action < 4) {
        LockEntry entry = new LockEntry("lock-" + step);
        entry.expiresAt = random.nextLong(-1_000, 1_000);
        heap.add(entry);
        held.add(entry);
      } else if (action < 8) {
        LockEntry entry = held.remove(random.nextInt(held.size()));
        heap.remove(entry);
        assertThat(entry.heapIndex).isEqualTo(-1);
      } else {
        LockEntry entry = held.get(random.nextInt(held.size()));
        entry.expiresAt = random.nextLong(-1_000, 1_000);
        heap.changed(entry);
      }
      assertMatchesHeld();
    }
  }

  @Test
  void endsAreComparedAcrossTheWrapOfTheClock() {
    LockEntry beforeWrap = entryEndingAt(Long.MAX_VALUE - 5);
    LockEntry afterWrap = entryEndingAt(Long.MIN_VALUE + 5);

    heap.add(afterWrap);
    heap.add(beforeWrap);

    assertThat(heap.first()).isSameAs(beforeWrap);
    assertThat(heap.last()).isSameAs(afterWrap);
  }

  @Test
  void anEmptyHeapHasNoFirstOrLast() {
    LockEntry entry = entryEndingAt(1);
    heap.add(entry);
    heap.remove(entry);

    assertThat(heap.size()).isZero();
    assertThat(heap.first()).isNull();
    assertThat(heap.last()).isNull();
  }

  private void assertMatchesHeld() {
    assertThat(heap.size()).isEqualTo(held.size());
    if (held.isEmpty()) {
      assertThat(heap.first()).isNull();
      assertThat(heap.last()).isNull();
      return;
    }
    Comparator<LockEntry> byEnd = Comparator.comparingLong(entry -> entry.expiresAt);
    assertThat(heap.first())
        .extracting(entry -> entry.expiresAt)
        .isEqualTo(held.stream().min(byEnd).orElseThrow().expiresAt);
    assertThat(heap.last())
        .extracting(entry -> entry.expiresAt)
        .isEqualTo(held.stream().max(byEnd).orElseThrow().expiresAt);
    assertThat(held)
        .extracting(entry -> entry.heapIndex)
        .allMatch(index -> index >= 0 && index < held.size())
        .doesNotHaveDuplicates();
  }

  private static LockEntry entryEndingAt(long nanos) {
    LockEntry entry = new LockEntry("lock-" + nanos);
    entry.expiresAt = nanos;
    return entry;
  }
}
