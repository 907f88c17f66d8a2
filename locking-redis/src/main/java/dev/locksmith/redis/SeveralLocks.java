package dev.locksmith.redis;

import dev.locksmith.core.spi.LeaseGrant;
import dev.locksmith.core.spi.LockRequest;
import dev.locksmith.core.spi.RenewalRequest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.function.BooleanSupplier;

/**
 * Several locks in one script: a set acquired all or none ({@link LuaScripts#ACQUIRE_ALL}) and
 * leases renewed in a batch ({@link LuaScripts#RENEW_ALL}). On a Cluster, where a script only runs
 * over keys of one slot, this decides what goes into one script ({@link KeySlots}).
 */
final class SeveralLocks {
  private final LockCommands commands;
  private final EvictionGate evictionGate;
  // Whether scripts are split by slot: a Cluster, or one address that refuses a script over keys of
  // several slots (a proxy or a managed service's single endpoint), which Redisson learns when it
  // first connects.
  private final BooleanSupplier cluster;

  SeveralLocks(LockCommands commands, EvictionGate evictionGate, BooleanSupplier cluster) {
    this.commands = commands;
    this.evictionGate = evictionGate;
    this.cluster = cluster;
  }

  /**
   * Whether one script may touch all of {@code keys}: always on a server, master/replica or
   * Sentinel set-up, and on a Cluster when every lock's keys lie in one slot. The eviction policy
   * is checked first, for {@code lockId}, which connects.
   */
  boolean inOneScript(List<LockKeys> keys, String lockId) {
    evictionGate.ensureChecked(lockId); // connects first, so the set-up is known
    if (!cluster.getAsBoolean()) {
      return true;
    }
    int slot = KeySlots.slot(keys.get(0).lock());
    for (LockKeys lock : keys) {
      if (KeySlots.slot(lock.lock()) != slot) {
        return false;
      }
    }
    return true;
  }

  /**
   * Takes {@code requests} (their keys in {@code keys}, the same order, {@link #inOneScript}) with
   * one script, all or none: their grants in request order, or empty when one was busy.
   */
  Optional<List<LeaseGrant>> acquireAll(List<LockRequest> requests, List<LockKeys> keys) {
    evictionGate.ensureChecked(requests.get(0).lockId());
    long sentAt = System.nanoTime();
    Optional<List<Long>> fences = commands.acquireAll(requests, keys);
    if (fences.isEmpty()) {
      return Optional.empty();
    }
    List<LeaseGrant> grants = new ArrayList<>(requests.size());
    for (int i = 0; i < requests.size(); i++) {
      LockRequest request = requests.get(i);
      grants.add(request.granted(fences.get().get(i), sentAt));
    }
    return Optional.of(List.copyOf(grants));
  }

  /**
   * Renews {@code requests} (their keys in {@code keys}, the same order) with one script per slot,
   * all sent before any is awaited: each renewed lease, or empty where it was no longer held.
   */
  List<Optional<LeaseGrant>> renewAll(List<RenewalRequest> requests, List<LockKeys> keys) {
    Map<Integer, List<Integer>> groups = new LinkedHashMap<>();
    boolean bySlot = cluster.getAsBoolean();
    for (int i = 0; i < requests.size(); i++) {
      int slot = bySlot ? KeySlots.slot(keys.get(i).lock()) : 0;
      groups.computeIfAbsent(slot, s -> new ArrayList<>()).add(i);
    }
    long sentAt = System.nanoTime();
    List<CompletableFuture<List<Boolean>>> sent = new ArrayList<>(groups.size());
    for (List<Integer> group : groups.values()) {
      List<LeaseGrant> leases = new ArrayList<>(group.size());
      List<LockKeys> groupKeys = new ArrayList<>(group.size());
      List<Duration> ttls = new ArrayList<>(group.size());
      for (int i : group) {
        leases.add(requests.get(i).lease());
        groupKeys.add(keys.get(i));
        ttls.add(requests.get(i).ttl());
      }
      sent.add(commands.renewAll(leases, groupKeys, ttls));
    }
    List<Optional<LeaseGrant>> renewed = new ArrayList<>(requests.size());
    for (int i = 0; i < requests.size(); i++) {
      renewed.add(Optional.empty());
    }
    int g = 0;
    for (List<Integer> group : groups.values()) {
      List<Boolean> answers;
      try {
        answers = sent.get(g++).join();
      } catch (CompletionException e) {
        if (e.getCause() instanceof RuntimeException failure) {
          throw failure;
        }
        throw e;
      }
      for (int j = 0; j < group.size(); j++) {
        if (answers.get(j)) {
          RenewalRequest request = requests.get(group.get(j));
          renewed.set(
              group.get(j),
              Optional.of(
                  request.lease().renewed(request.ttl(), sentAt + request.ttl().toNanos())));
        }
      }
    }
    return renewed;
  }
}
