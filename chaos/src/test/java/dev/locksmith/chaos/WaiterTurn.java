package dev.locksmith.chaos;

import dev.locksmith.core.Lease;
import dev.locksmith.core.LockOptions;
import dev.locksmith.testkit.CriticalSection;
import dev.locksmith.testkit.History;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Consumer;

/**
 * One waiter's turn in the scenarios where waiters queue behind a holder and a fault strikes (the
 * ZooKeeper ensemble's killed servers, the Redis topologies' failovers): its index (its queue
 * position), token, grant and release, validity at its section's end, and whether its client's
 * provider went down during its wait (it rode through an outage).
 */
record WaiterTurn(
    int index, long token, long grantedAt, long releasedAt, boolean valid, boolean rodeOutage) {

  private static final Duration SECTION = Duration.ofMillis(20);

  /**
   * Acquires through {@code client} with {@code options} (their {@code waitTimeout} set), works a
   * 20 ms section and releases.
   */
  static WaiterTurn take(Client client, LockOptions options, int index) throws Exception {
    OutageSeen outage = OutageSeen.from(client.locksmith());
    Lease lease = client.locksmith().acquire(options);
    boolean rodeOutage = outage.seen();
    long grantedAt = System.nanoTime();
    LockSupport.parkNanos(SECTION.toNanos()); // the critical section's work
    boolean valid = lease.isValid();
    long releasedAt = System.nanoTime();
    lease.close();
    return new WaiterTurn(index, lease.fencingToken(), grantedAt, releasedAt, valid, rodeOutage);
  }

  /**
   * Starts waiter {@code index} on the thread {@code waiter-<index>}, taking its turn through a
   * client of its own onto {@code url}; the client is added to {@code clients}, for the caller to
   * close.
   */
  static Async.Call<WaiterTurn> start(
      String url, List<Client> clients, LockOptions options, int index) {
    Client client = Client.connect(url);
    clients.add(client);
    return Async.start("waiter-" + index, () -> take(client, options, index));
  }

  /**
   * Waits up to {@code bound} for each waiter in turn and returns the turns granted, in grant
   * order. A waiter whose acquire threw is classified and handed to {@code failed}; the name of one
   * still waiting after the bound is handed to {@code stillWaiting}.
   */
  static List<WaiterTurn> collect(
      List<Async.Call<WaiterTurn>> waiters,
      Duration bound,
      Consumer<WaitFailure> failed,
      Consumer<String> stillWaiting)
      throws InterruptedException {
    List<WaiterTurn> turns = new ArrayList<>();
    for (Async.Call<WaiterTurn> waiter : waiters) {
      String name = waiter.thread().getName();
      try {
        turns.add(waiter.result().get(bound.toMillis(), TimeUnit.MILLISECONDS));
      } catch (ExecutionException e) {
        failed.accept(WaitFailure.of(name, e.getCause()));
      } catch (TimeoutException e) {
        stillWaiting.accept(name);
      }
    }
    turns.sort(Comparator.comparingLong(WaiterTurn::grantedAt));
    return turns;
  }

  /**
   * Checks the holder's section (section 0, from {@code heldAt} to {@code holderEnd}) and the
   * waiters' against the mutex model (no overlap, tokens increasing), and that each waiter's lease
   * was still valid at its section's end.
   *
   * @return the violations found
   */
  static List<String> check(long holderToken, long heldAt, long holderEnd, List<WaiterTurn> turns) {
    List<String> violations = new ArrayList<>();
    List<CriticalSection> sections = new ArrayList<>();
    sections.add(new CriticalSection(0, holderToken, heldAt, holderEnd));
    for (WaiterTurn turn : turns) {
      sections.add(
          new CriticalSection(turn.index() + 1, turn.token(), turn.grantedAt(), turn.releasedAt()));
      if (!turn.valid()) {
        violations.add("waiter " + turn.index() + "'s lease was not valid at its section's end");
      }
    }
    violations.addAll(History.check(sections).violations());
    return violations;
  }
}
