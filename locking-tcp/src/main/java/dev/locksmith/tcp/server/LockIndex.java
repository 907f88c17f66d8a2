package dev.locksmith.tcp.server;

import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * The locks with a holder or waiters by id: an open-addressing hash table with linear probing over
 * one array of entries, so a lock costs 4 to 8 bytes of table instead of a map node. It grows at
 * 60% full and shrinks when mostly empty, so a server whose load went away gives the memory back.
 * Ids come from clients, so they are hashed with a key of this table's own ({@link SipHash}), not
 * with {@code String.hashCode}, for which colliding ids are easy to make. Core thread only.
 */
final class LockIndex {
  private static final int MIN_CAPACITY = 1024;

  private final SipHash hash;
  private @Nullable LockEntry[] slots = new LockEntry[MIN_CAPACITY];
  private int size;

  LockIndex() {
    SecureRandom random = new SecureRandom();
    this.hash = new SipHash(random.nextLong(), random.nextLong());
  }

  int size() {
    return size;
  }

  @Nullable LockEntry get(String lockId) {
    int mask = slots.length - 1;
    for (int i = hash.of(lockId) & mask; ; i = (i + 1) & mask) {
      LockEntry entry = slots[i];
      if (entry == null) {
        return null;
      }
      if (entry.lockId.equals(lockId)) {
        return entry;
      }
    }
  }

  /** Every entry, as a list the table's changes do not affect. */
  List<LockEntry> entries() {
    List<LockEntry> entries = new ArrayList<>(size);
    for (LockEntry entry : slots) {
      if (entry != null) {
        entries.add(entry);
      }
    }
    return entries;
  }

  /** Adds an entry whose id is not in the table. */
  void add(LockEntry entry) {
    if (size + 1 > slots.length * 3L / 5) {
      resize(slots.length * 2);
    }
    entry.hash = hash.of(entry.lockId);
    insert(slots, entry);
    size++;
  }

  /** Removes this entry, if it is the one in the table under its id. */
  void remove(LockEntry entry) {
    int mask = slots.length - 1;
    int i = entry.hash & mask;
    while (true) {
      LockEntry at = slots[i];
      if (at == null) {
        return;
      }
      if (at == entry) {
        break;
      }
      i = (i + 1) & mask;
    }
    // Backward-shift deletion: move later entries of the probe run into the gap.
    int gap = i;
    for (int j = (gap + 1) & mask; ; j = (j + 1) & mask) {
      LockEntry at = slots[j];
      if (at == null) {
        break;
      }
      int home = at.hash & mask;
      if (((j - home) & mask) >= ((j - gap) & mask)) {
        slots[gap] = at;
        gap = j;
      }
    }
    slots[gap] = null;
    size--;
    if (slots.length > MIN_CAPACITY && size < slots.length / 8) {
      resize(slots.length / 2);
    }
  }

  /** Removes the entry when its lock is neither held nor waited for. */
  void removeIfIdle(LockEntry entry) {
    if (!entry.held && !entry.hasWaiters()) {
      remove(entry);
    }
  }

  private void resize(int capacity) {
    @Nullable LockEntry[] old = slots;
    @Nullable LockEntry[] grown = new LockEntry[capacity];
    for (LockEntry entry : old) {
      if (entry != null) {
        insert(grown, entry);
      }
    }
    slots = grown;
  }

  /** The longest run of occupied slots, which bounds a lookup's probes; for tests. */
  int longestProbe() {
    int longest = 0;
    int run = 0;
    // Twice round, so that a run wrapping past the end is counted whole.
    for (int k = 0; k < 2 * slots.length; k++) {
      run = slots[k & (slots.length - 1)] == null ? 0 : run + 1;
      longest = Math.max(longest, Math.min(run, slots.length));
    }
    return longest;
  }

  private static void insert(@Nullable LockEntry[] table, LockEntry entry) {
    int mask = table.length - 1;
    int i = entry.hash & mask;
    while (table[i] != null) {
      i = (i + 1) & mask;
    }
    table[i] = entry;
  }
}
