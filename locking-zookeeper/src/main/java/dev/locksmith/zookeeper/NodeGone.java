package dev.locksmith.zookeeper;

import dev.locksmith.core.LockProviderException;
import dev.locksmith.core.spi.LockIdText;

/** A request's queue node is gone: its session ended, or it expired. */
final class NodeGone extends LockProviderException {
  NodeGone(String lockId) {
    super(
        "ZooKeeper: the queue node of lock "
            + LockIdText.quoted(lockId)
            + " is gone (its session ended)");
  }
}
