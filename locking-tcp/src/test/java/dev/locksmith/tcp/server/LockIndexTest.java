package dev.locksmith.tcp.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The lock table's index keeps short probe runs even for ids chosen to collide: lock ids come from
 * clients, and with {@code String.hashCode} a client can make thousands of ids land on one slot (a
 * hash flood) and stall the server's one core thread on every lookup.
 */
class LockIndexTest {
  private static final int IDS = 1 << 14;

  /** 2^14 distinct ids with one {@code String.hashCode}: "Aa" and "BB" hash alike. */
  private static List<String> collidingIds() {
    List<String> ids = new ArrayList<>(IDS);
    for (int n = 0; n < IDS; n++) {
      StringBuilder id = new StringBuilder("flood-");
      for (int bit = 0; bit < 14; bit++) {
        id.append((n >> bit & 1) == 0 ? "Aa" : "BB");
      }
      ids.add(id.toString());
    }
    return ids;
  }

  @Test
  void idsWithOneStringHashCodeDoNotShareAProbeRun() {
    List<String> ids = collidingIds();
    assertThat(ids.stream().map(String::hashCode).distinct()).hasSize(1);
    LockIndex index = new LockIndex();
    List<LockEntry> entries = new ArrayList<>();
    for (String id : ids) {
      LockEntry entry = new LockEntry(id);
      index.add(entry);
      entries.add(entry);
    }
    assertThat(index.longestProbe()).as("the longest probe run").isLessThan(1_000);
    for (LockEntry entry : entries) {
      assertThat(index.get(entry.lockId)).isSameAs(entry);
    }
    for (LockEntry entry : entries) {
      index.remove(entry);
    }
    assertThat(index.size()).isZero();
    assertThat(index.get(ids.get(0))).isNull();
  }
}
