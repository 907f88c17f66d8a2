package dev.locksmith.zookeeper;

import dev.locksmith.core.spi.WakeSignal;
import java.util.function.Consumer;
import org.apache.curator.framework.CuratorFramework;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.WatchedEvent;
import org.apache.zookeeper.Watcher;

/**
 * Wakes a waiter when the node ahead of it in the queue changes or goes. A data watch, as Curator's
 * own lock sets: the ensemble keeps an existence watch on a missing node until the session ends,
 * and a sequential name never comes back.
 */
final class PredecessorWatch {
  private final CuratorFramework client;
  private final ZkCalls calls;
  private volatile Consumer<String> beforeWatch = path -> {};

  PredecessorWatch(CuratorFramework client, ZkCalls calls) {
    this.client = client;
    this.calls = calls;
  }

  /**
   * Sets a watch that wakes {@code signal} when the node at {@code predecessor} changes or goes;
   * {@code false} when it is gone already.
   */
  boolean watch(String id, String predecessor, WakeSignal signal) throws InterruptedException {
    beforeWatch.accept(predecessor);
    try {
      return calls.call(
          "wait",
          id,
          () -> {
            try {
              client.getData().usingWatcher(new Wake(signal)).forPath(predecessor);
              return true;
            } catch (KeeperException.NoNodeException gone) {
              return false;
            }
          },
          null);
    } catch (KeeperException e) {
      throw calls.failure("wait", id, e.toString(), e);
    }
  }

  /** Installs a hook that runs with the path of the node a waiter is about to watch; tests only. */
  void beforeWatch(Consumer<String> hook) {
    this.beforeWatch = hook;
  }

  private record Wake(WakeSignal signal) implements Watcher {
    @Override
    public void process(WatchedEvent event) {
      signal.wake();
    }
  }
}
