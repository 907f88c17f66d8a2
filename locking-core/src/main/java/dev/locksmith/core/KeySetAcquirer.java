package dev.locksmith.core;

import dev.locksmith.annotation.OnBusy;
import dev.locksmith.core.spi.LeaseGrant;
import dev.locksmith.core.spi.LockIdText;
import dev.locksmith.core.spi.LockProvider;
import dev.locksmith.core.spi.LockRequest;
import dev.locksmith.core.spi.OwnerTokens;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * Takes the locks of a call over several keys ({@link LockOptions#withKeys}) all or nothing: first
 * as one set, then, under WAIT, one by one in lock order. Each lock is taken and kept as the {@link
 * LeaseAcquirer} takes one.
 */
final class KeySetAcquirer {
  private final LeaseAcquirer acquirer;
  private final GrantGate gate;
  private final ProviderCircuits circuits;
  private final Listeners listeners;
  private final Ticker ticker;

  KeySetAcquirer(
      LeaseAcquirer acquirer,
      GrantGate gate,
      ProviderCircuits circuits,
      Listeners listeners,
      Ticker ticker) {
    this.acquirer = acquirer;
    this.gate = gate;
    this.circuits = circuits;
    this.listeners = listeners;
    this.ticker = ticker;
  }

  /**
   * Takes the lock of every key, all or nothing. A key whose lease this thread already holds
   * (through the same provider) is reentered, not taken again. The other keys are first asked for
   * at once ({@link LockProvider#tryAcquireAll}), one round trip where the provider can do it, the
   * store keeping the set all or nothing: when it is taken the call is done; when one key is busy,
   * SKIP and FAIL end there with nothing held, and WAIT takes the keys one by one in lock order
   * (the keys sorted, so that two calls over the same keys cannot deadlock), each next key getting
   * the time left of the one {@code waitTimeout}. When a WAIT runs out, or anything fails, the
   * leases taken so far are released in reverse order.
   *
   * <p>The leases of {@code reentered} (found on the caller's thread, perhaps another than this
   * one) are reentered, and the one wait counts from {@code start}. The holds it took are the
   * lease's to drop, or are dropped here when nothing is returned.
   */
  @Nullable CompositeLease obtainAll(
      LockOptions options,
      String providerName,
      LockProvider provider,
      boolean call,
      ReenteredKeys reentered,
      long start) {
    List<String> keys = options.keys();
    @Nullable ActiveLease[] slots = new ActiveLease[keys.size()];
    List<LockOptions> missing = new ArrayList<>(keys.size());
    List<Integer> missingSlots = new ArrayList<>(keys.size());
    List<ActiveLease> owned = new ArrayList<>(keys.size());
    List<Runnable> borrowed = reentered.holds();
    boolean complete = false;
    try {
      for (int i = 0; i < keys.size(); i++) {
        slots[i] = reentered.at(i);
        if (slots[i] == null) {
          missing.add(options.withKey(keys.get(i)));
          missingSlots.add(i);
        }
      }
      if (missing.size() > 1) {
        List<ActiveLease> taken = new ArrayList<>(missing.size());
        Batch outcome = obtainBatch(missing, providerName, provider, call, start, taken);
        if (outcome == Batch.SKIPPED) {
          return null;
        }
        for (int j = 0; j < taken.size(); j++) {
          slots[missingSlots.get(j)] = taken.get(j);
        }
        owned.addAll(taken);
      }
      for (int j = 0; j < missing.size(); j++) {
        int slot = missingSlots.get(j);
        if (slots[slot] != null) {
          continue;
        }
        // Within the set's one wait: its deadline and figures count from the set's start, and
        // once the set has asked the provider, a key reached after the deadline is not asked for.
        boolean askedBefore = missing.size() > 1 || !owned.isEmpty();
        ActiveLease lease =
            acquirer.obtain(missing.get(j), providerName, provider, call, start, askedBefore);
        if (lease == null) {
          return null;
        }
        slots[slot] = lease;
        owned.add(lease);
      }
      List<ActiveLease> parts = new ArrayList<>(slots.length);
      for (ActiveLease part : slots) {
        parts.add(Objects.requireNonNull(part));
      }
      complete = true;
      return new CompositeLease(options, parts, owned, borrowed);
    } finally {
      if (!complete) {
        CompositeLease.abandon(owned, borrowed);
      }
    }
  }

  /** How asking for a set of locks at once ended, when it did not throw. */
  private enum Batch {
    /** Every lock was taken. */
    TAKEN,
    /** A lock was busy under SKIP: nothing is held. */
    SKIPPED,
    /** WAIT takes the locks one by one: a lock was busy, or a late grant could not be used. */
    ONE_BY_ONE
  }

  /**
   * Asks for every lock of {@code ones} (each with one key, in lock order) in one {@link
   * LockProvider#tryAcquireAll} call. Each grant is made usable and kept as {@link
   * LeaseAcquirer#obtain} does ({@link LeaseAcquirer#use}), into {@code taken} in the same order.
   * When the set is busy, SKIP reports busy and FAIL throws {@link LockBusyException}, with nothing
   * held (the store answered for the whole set, so it cannot say which lock was busy: the event
   * names the first). When a late grant cannot be used, every grant is released and the call goes
   * on as {@link LeaseAcquirer#obtain} would.
   *
   * @return {@link Batch#TAKEN} with {@code taken} filled, or else with {@code taken} empty
   */
  private Batch obtainBatch(
      List<LockOptions> ones,
      String providerName,
      LockProvider provider,
      boolean call,
      long start,
      List<ActiveLease> taken) {
    gate.checkOpen();
    ProviderCircuit circuit = circuits.of(provider);
    LockOptions options = ones.get(0);
    List<String> lockIds = ones.stream().map(LockOptions::lockId).toList();
    LockEvent attempt = new LockEvent(options.name(), lockIds.get(0), providerName, 0);
    boolean wait = options.onBusy() == OnBusy.WAIT;
    long waitNanos = options.waitTimeout().toNanos();
    String owner = OwnerTokens.describeCaller();
    List<LockRequest> requests = new ArrayList<>(ones.size());
    for (LockOptions one : ones) {
      requests.add(new LockRequest(one.lockId(), OwnerTokens.newToken(), one.ttl(), owner));
    }
    Optional<List<LeaseGrant>> answer;
    try {
      answer =
          circuit.call(
              () -> provider.tryAcquireAll(requests),
              String.join("', '", lockIds),
              ProviderCircuit.ACQUIRED);
    } catch (RuntimeException e) {
      if (wait && ProviderCircuit.isProviderFailure(e)) {
        return Batch.ONE_BY_ONE; // each key then rides through the outage within the wait
      }
      listeners.error(attempt, e);
      throw e;
    }
    if (answer.isEmpty()) {
      switch (options.onBusy()) {
        case SKIP -> {
          listeners.busy(attempt, Duration.ofNanos(ticker.read() - start));
          return Batch.SKIPPED;
        }
        case FAIL -> {
          listeners.busy(attempt, Duration.ofNanos(ticker.read() - start));
          throw new LockBusyException(lockIds);
        }
        default -> {
          return Batch.ONE_BY_ONE;
        }
      }
    }
    List<LeaseGrant> grants = answer.get();
    if (grants.size() != requests.size()) {
      acquirer.releaseLater(grants, circuit);
      IllegalStateException error =
          new IllegalStateException(
              "Lock provider "
                  + circuit.name()
                  + " answered "
                  + grants.size()
                  + " grants for the "
                  + requests.size()
                  + " locks "
                  + LockIdText.quoted(lockIds)
                  + " it was asked for at once");
      listeners.error(attempt, error);
      throw error;
    }
    gate.usingGrants(grants, circuit);
    try {
      return useAll(ones, providerName, circuit, grants, wait, start, waitNanos, call, taken);
    } finally {
      gate.grantsUsed();
    }
  }

  /** Makes every grant of a set into a lease, or gives the set up as one key's grant would be. */
  private Batch useAll(
      List<LockOptions> ones,
      String providerName,
      ProviderCircuit circuit,
      List<LeaseGrant> grants,
      boolean wait,
      long start,
      long waitNanos,
      boolean call,
      List<ActiveLease> taken) {
    LockOptions options = ones.get(0);
    List<String> lockIds = ones.stream().map(LockOptions::lockId).toList();
    boolean inTime = !wait || ticker.read() - start < waitNanos;
    LateGrants.@Nullable Refused refusal = null;
    int used = 0;
    try {
      while (used < grants.size()) {
        taken.add(
            acquirer.use(
                ones.get(used),
                lockIds.get(used),
                providerName,
                circuit,
                grants.get(used),
                inTime,
                start,
                call));
        used++;
      }
    } catch (LateGrants.Refused e) {
      refusal = e;
    } catch (RuntimeException | Error e) {
      CompositeLease.abandon(taken, List.of());
      taken.clear();
      acquirer.releaseLater(grants.subList(used, grants.size()), circuit);
      throw e;
    }
    if (refusal == null) {
      return Batch.TAKEN;
    }
    // A late grant could not be made usable: the set is given up as one key's grant would be.
    CompositeLease.abandon(taken, List.of());
    taken.clear();
    List<LeaseGrant> unused = grants.subList(used, grants.size());
    if (wait && ticker.read() - start < waitNanos) {
      for (int k = unused.size() - 1; k >= 0; k--) {
        LateGrants.release(unused.get(k), circuit); // before asking again, within the wait
      }
      return Batch.ONE_BY_ONE;
    }
    acquirer.releaseLater(unused, circuit);
    LockEvent late = new LockEvent(options.name(), unused.get(0).lockId(), providerName, 0);
    throw acquirer.refused(late, start, inTime && !wait, refusal);
  }
}
