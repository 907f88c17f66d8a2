package dev.locksmith.zookeeper;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The lock nodes this provider saw exist lately, at most 1024 (least recently used go first), so
 * that an acquire of a lock in use sends only its lease node. A lock node removed meanwhile (a
 * container node goes when its last lease has gone) costs the acquire a retry that creates it.
 */
final class KnownParents {
  private static final int MAX = 1024;

  private final Map<String, Boolean> known =
      new LinkedHashMap<>(64, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, Boolean> eldest) {
          return size() > MAX;
        }
      };

  synchronized boolean contains(String path) {
    return known.get(path) != null;
  }

  synchronized void add(String path) {
    known.put(path, Boolean.TRUE);
  }
}
