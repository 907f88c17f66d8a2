package dev.locksmith.tcp.server;

import java.util.Arrays;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * The held leases ordered by when they end: a binary min-heap on {@link LockEntry#expiresAt} whose
 * entries know their position, so adding, removing and moving a lease costs O(log n) and 4 bytes of
 * array per lease, and one timer for the earliest end serves every lease. Core thread only.
 */
final class ExpiryHeap {
  /** Entries at [0, size); null past them, so a removed lease is not kept reachable. */
  private @Nullable LockEntry[] heap = new LockEntry[64];

  private int size;

  int size() {
    return size;
  }

  /** The lease that ends first, or null when none is held. */
  @Nullable LockEntry first() {
    return size == 0 ? null : heap[0];
  }

  /**
   * The lease that ends last, or null when none is held; looks at the leaves, half the leases: an
   * entry with children ends no later than they do.
   */
  // Entries below size are never null; a requireNonNull on each made the scan about six times
  // slower (LeaseHorizonScanBenchmark).
  @SuppressWarnings("NullAway")
  @Nullable LockEntry last() {
    LockEntry[] entries = heap;
    int count = size;
    LockEntry last = null;
    for (int i = count >>> 1; i < count; i++) {
      LockEntry entry = entries[i];
      if (last == null || entry.expiresAt - last.expiresAt > 0) {
        last = entry;
      }
    }
    return last;
  }

  void add(LockEntry entry) {
    if (size == heap.length) {
      heap = Arrays.copyOf(heap, heap.length + (heap.length >> 1));
    }
    place(entry, size++);
    up(entry.heapIndex);
  }

  void remove(LockEntry entry) {
    int index = entry.heapIndex;
    if (index < 0) {
      return;
    }
    entry.heapIndex = -1;
    LockEntry last = at(--size);
    heap[size] = null;
    if (index < size) {
      place(last, index);
      down(index);
      up(last.heapIndex);
    }
    if (heap.length > 1024 && size < heap.length >> 2) {
      heap = Arrays.copyOf(heap, heap.length >> 1);
    }
  }

  /** Moves an entry whose {@code expiresAt} changed to its place. */
  void changed(LockEntry entry) {
    if (entry.heapIndex >= 0) {
      down(entry.heapIndex);
      up(entry.heapIndex);
    }
  }

  /** The entry at {@code index}, one of the first {@code size}. */
  private LockEntry at(int index) {
    return Objects.requireNonNull(heap[index]);
  }

  /** Puts {@code entry} at {@code index}, and tells it its position. */
  private void place(LockEntry entry, int index) {
    heap[index] = entry;
    entry.heapIndex = index;
  }

  private void up(int index) {
    LockEntry entry = at(index);
    while (index > 0) {
      int parent = (index - 1) >>> 1;
      LockEntry above = at(parent);
      if (entry.expiresAt - above.expiresAt >= 0) {
        break;
      }
      place(above, index);
      index = parent;
    }
    place(entry, index);
  }

  private void down(int index) {
    LockEntry entry = at(index);
    int half = size >>> 1;
    while (index < half) {
      int child = 2 * index + 1;
      LockEntry smaller = at(child);
      int right = child + 1;
      if (right < size && at(right).expiresAt - smaller.expiresAt < 0) {
        child = right;
        smaller = at(right);
      }
      if (smaller.expiresAt - entry.expiresAt >= 0) {
        break;
      }
      place(smaller, index);
      index = child;
    }
    place(entry, index);
  }
}
