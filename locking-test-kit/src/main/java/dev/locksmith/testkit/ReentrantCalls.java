package dev.locksmith.testkit;

import dev.locksmith.annotation.DistributedLock;
import dev.locksmith.core.Locksmith;
import java.util.concurrent.CompletableFuture;

/** Annotated calls for the reentrancy case: the inner call returns a stage still pending. */
final class ReentrantCalls {
  final CompletableFuture<String> pending = new CompletableFuture<>();

  @DistributedLock(name = "contract-reentrant", key = "#p0")
  void outer(String id, Locksmith locksmith) throws Throwable {
    locksmith.invoke(Invocations.of(this, "inner", id));
  }

  @DistributedLock(name = "contract-reentrant", key = "#p0")
  CompletableFuture<String> inner(String id) {
    return pending;
  }
}
