package dev.locksmith.chaos;

import static org.assertj.core.api.Assertions.assertThat;

import dev.locksmith.core.Lease;
import dev.locksmith.core.LockOptions;
import dev.locksmith.testkit.CriticalSection;
import dev.locksmith.testkit.History;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Scenario 6: 50 waiters on one key, spread over 5 clients, each taking the lock once and releasing
 * it at once, so the lock is handed on 50 times in a row. Every waiter must get it (no lost
 * wake-up: no hand-off may take 1 s, while a missed wake-up would wait for a 10 s lease), the
 * grants must not overlap and their tokens must increase, and where the provider promises FIFO (the
 * TCP server's queue, ZooKeeper's sequential nodes) each client's waiters must be granted in the
 * order they queued. A client's waiters queue in its engine behind one wait on the store, so across
 * clients the store's order is that of the clients' turns; grants out of the global order are
 * reported as a figure.
 */
class CrowdOfWaitersChaosTest {
  static final String TITLE = "50 waiters on one key through repeated releases";
  private static final int WAITERS = 50;
  private static final int CLIENTS = 5;
  private static final Duration LEASE = Duration.ofSeconds(10);
  private static final Duration BOUND = Duration.ofSeconds(1);
  private static final Duration SECTION = Duration.ofMillis(5);

  /** One waiter's turn: its queue position, token, and when it got and gave back the lock. */
  private record Turn(int index, long token, long grantedAt, long releasedAt) {}

  @ParameterizedTest(name = "{0}")
  @EnumSource(Backend.Kind.class)
  void fiftyWaitersAllGetTheLockInTurn(Backend.Kind kind) throws Exception {
    Path dir = WorkDirs.fresh("6-crowd-" + kind.name().toLowerCase());
    List<String> violations = new ArrayList<>();
    List<Turn> turns = new ArrayList<>();
    long freedAt;
    LockOptions options = LockOptions.named("crowd").withTtl(LEASE);
    try (Backend backend = kind.start(dir, false);
        Client holder = Client.connect(backend.url())) {
      List<Client> clients = new ArrayList<>();
      List<Async.Call<Turn>> waiters = new ArrayList<>();
      try {
        for (int c = 0; c < CLIENTS; c++) {
          clients.add(Client.connect(backend.url()));
        }
        Lease held = holder.locksmith().acquire(options);
        for (int i = 0; i < WAITERS; i++) {
          int index = i;
          Client client = clients.get(i % CLIENTS);
          waiters.add(
              Async.start(
                  "crowd-" + i,
                  () -> {
                    Lease lease =
                        client.locksmith().acquire(options.withWaitTimeout(Duration.ofSeconds(60)));
                    long grantedAt = System.nanoTime();
                    long token = lease.fencingToken();
                    // Held for a while, so that a second holder granted meanwhile overlaps it.
                    LockSupport.parkNanos(SECTION.toNanos());
                    long releasedAt = System.nanoTime();
                    lease.close();
                    return new Turn(index, token, grantedAt, releasedAt);
                  }));
          if (kind.promisesFifo()) {
            // Queue them one by one, so the queue order is known: a client's first waiter on the
            // store, its others in the client's local queue behind it.
            if (i < CLIENTS) {
              Readiness.awaitWaiting(client, "crowd", i + 1, List.of());
            } else {
              Readiness.awaitParked(List.of(waiters.get(i).thread()));
            }
          }
        }
        if (!kind.promisesFifo()) {
          Readiness.awaitWaiting(
              clients.get(0), "crowd", WAITERS, waiters.stream().map(Async.Call::thread).toList());
        }
        freedAt = System.nanoTime();
        held.close();
        for (Async.Call<Turn> waiter : waiters) {
          try {
            turns.add(waiter.result().get(90, TimeUnit.SECONDS));
          } catch (ExecutionException e) {
            violations.add(waiter.thread().getName() + " failed: " + e.getCause());
          }
        }
      } finally {
        clients.forEach(Client::close);
      }
    }

    turns.sort(Comparator.comparingLong(Turn::grantedAt));
    List<Long> handOffs = new ArrayList<>();
    long previousRelease = freedAt;
    for (Turn turn : turns) {
      long handOff = turn.grantedAt() - previousRelease;
      handOffs.add(handOff);
      if (handOff > BOUND.toNanos()) {
        violations.add(
            "waiter "
                + turn.index()
                + " got the lock "
                + handOff / 1_000_000
                + " ms after the release before it (lost wake-up?)");
      }
      previousRelease = turn.releasedAt();
    }
    History history =
        History.check(
            turns.stream()
                .map(t -> new CriticalSection(t.index(), t.token(), t.grantedAt(), t.releasedAt()))
                .toList());
    violations.addAll(history.violations());
    List<Integer> order = turns.stream().map(Turn::index).toList();
    long outOfOrder = 0;
    for (int i = 0; i < order.size(); i++) {
      if (order.get(i) != i) {
        outOfOrder++;
      }
    }
    if (kind.promisesFifo()) {
      for (int c = 0; c < CLIENTS; c++) {
        int client = c;
        List<Integer> ofClient = order.stream().filter(index -> index % CLIENTS == client).toList();
        if (!ofClient.stream().sorted().toList().equals(ofClient)) {
          violations.add("FIFO broken among client " + client + "'s waiters: " + ofClient);
        }
      }
    }
    Figures figures =
        new Figures()
            .put("waiters / clients", WAITERS + " / " + CLIENTS)
            .put("granted", turns.size())
            .put("FIFO promised", kind.promisesFifo())
            .put("grants out of queue order (across clients)", outOfOrder)
            .latencies("hand-off", handOffs);
    ChaosReport.record(6, TITLE, kind, figures, violations);

    assertThat(violations).isEmpty();
    assertThat(turns).hasSize(WAITERS);
  }
}
