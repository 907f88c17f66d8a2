package dev.locksmith.tcp.server;

import org.jspecify.annotations.Nullable;

/**
 * The locks with a holder or waiters by id: an open-addressing hash table with linear probing over
 * one array of entries, so a lock costs 4 to 8 bytes of table instead of a map node. It grows at
 * 60% full and shrinks when mostly empty, so a server whose load went away gives the memory back.
 * Core thread only.
 */
final class LockIndex {
  private static final int MIN_CAPACITY = 1024;

  private @Nullable LockEntry[] slots = new LockEntry[MIN_CAPACITY];
  private int size;

  int size() {
    return size;
  }

  @Nullable LockEntry get(String lockId) {
    int mask = slots.length - 1;
    for (int i = slot(lockId, mask); ; i = (i + 1) & mask) {
      LockEntry entry = slots[i];
      if (entry == null) {
        return null;
      }
      if (entry.lockId.equals(lockId)) {
        return entry;
      }
    }
  }

  /** Adds an entry whose id is not in the table. */
  void add(LockEntry entry) {
    if (size + 1 > slots.length * 3L / 5) {
      resize(slots.length * 2);
    }
    insert(slots, entry);
    size++;
  }

  /** Removes this entry, if it is the one in the table under its id. */
  void remove(LockEntry entry) {
    int mask = slots.length - 1;
    int i = slot(entry.lockId, mask);
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
      int home = slot(at.lockId, mask);
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

  private static void insert(@Nullable LockEntry[] table, LockEntry entry) {
    int mask = table.length - 1;
    int i = slot(entry.lockId, mask);
    while (table[i] != null) {
      i = (i + 1) & mask;
    }
    table[i] = entry;
  }

  private static int slot(String lockId, int mask) {
    int h = lockId.hashCode() * 0x9E3779B9;
    return (h ^ (h >>> 16)) & mask;
  }
}
