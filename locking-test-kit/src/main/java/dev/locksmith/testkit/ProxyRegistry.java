package dev.locksmith.testkit;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.locks.ReentrantLock;
import org.jspecify.annotations.Nullable;

/**
 * What a {@link FaultProxy} has running: its open connections and its threads. Once closed it
 * registers no connection and starts no thread, so closing sees every connection there will be.
 * Guarded by the proxy's lock.
 */
final class ProxyRegistry {
  private final ReentrantLock lock;
  private final ProxyThreads threads;
  private final Set<ProxyConnection> open = new LinkedHashSet<>();
  private boolean closed;

  /** Nothing running yet; {@code lock} guards the registry, {@code threads} runs the threads. */
  ProxyRegistry(ReentrantLock lock, ProxyThreads threads) {
    this.lock = lock;
    this.threads = threads;
  }

  /** Adds {@code connection} unless closed; returns whether it was added. */
  boolean register(ProxyConnection connection) {
    lock.lock();
    try {
      if (closed) {
        return false;
      }
      open.add(connection);
      return true;
    } finally {
      lock.unlock();
    }
  }

  /** Forgets a connection that has closed; call with the lock held. */
  void remove(ProxyConnection connection) {
    open.remove(connection);
  }

  /** Starts a daemon thread unless closed; returns whether it started. */
  boolean spawn(String name, Runnable body) {
    lock.lock();
    try {
      if (closed) {
        return false;
      }
      threads.start(name, body);
      return true;
    } finally {
      lock.unlock();
    }
  }

  /** The connections open now. */
  List<ProxyConnection> openConnections() {
    lock.lock();
    try {
      return new ArrayList<>(open);
    } finally {
      lock.unlock();
    }
  }

  /** How many connections are open now. */
  int size() {
    lock.lock();
    try {
      return open.size();
    } finally {
      lock.unlock();
    }
  }

  /** Wakes the pipes of {@code direction} on every open connection; call with the lock held. */
  void signalAll(FaultProxy.Direction direction) {
    for (ProxyConnection connection : open) {
      connection.pipe(direction).changed.signalAll();
    }
  }

  /** Whether the proxy has closed. */
  boolean isClosed() {
    lock.lock();
    try {
      return closed;
    } finally {
      lock.unlock();
    }
  }

  /** Closes the registry; returns the connections open then, or null if it was closed already. */
  @Nullable List<ProxyConnection> close() {
    lock.lock();
    try {
      if (closed) {
        return null;
      }
      closed = true;
      return new ArrayList<>(open);
    } finally {
      lock.unlock();
    }
  }

  /** Waits up to five seconds in all for the threads to end; see {@link ProxyThreads#joinAll()}. */
  void joinThreads() {
    threads.joinAll();
  }
}
