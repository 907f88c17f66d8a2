package dev.locksmith.chaos;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.locksmith.core.fencing.FencedFile;
import dev.locksmith.testkit.ChildJvm;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Scenario 4: the TCP lock server (closed and started again on the same port and data directory),
 * Redis (SIGKILLed and started again, with {@code appendfsync always}) and PostgreSQL (a fast
 * shutdown, then started again on the same port and data directory) and ZooKeeper (a {@code
 * TestingServer} stopped and started again on the same port and data) are restarted twice while 3
 * JVMs × 2 threads keep doing read-modify-write. Clients must notice the restarts: an error, a lost
 * lease, or their engine's circuit for the provider seen open (a {@code WAIT} rides through the
 * outage without an error, so the circuit is what most of them show); ZooKeeper's, PostgreSQL's and
 * Redis's clients wait through a 1 s outage instead (see {@code Backend.failsCallsDuringOutage}),
 * and their backends check that the server was down. Then they recover; no two valid leases may
 * overlap, no update may be lost, and fencing tokens must never go back.
 */
class ServerRestartChaosTest {
  static final String TITLE = "Server restarted mid-run (twice)";
  private static final int JVMS = 3;
  private static final int THREADS = 2;
  private static final int RESTARTS = 2;
  private static final int SECTIONS_BETWEEN = 30;
  private static final Duration DOWNTIME = Duration.ofSeconds(1);

  /** One restart: when the server was stopped and when it answered again. */
  private record Restart(long stoppedAt, long upAt) {}

  @ParameterizedTest(name = "{0}")
  @EnumSource(names = {"TCP", "REDIS", "JDBC", "ZOOKEEPER"})
  void clientsSeeErrorsThenRecoverWithoutOverlapOrLostUpdate(Backend.Kind kind) throws Exception {
    Path dir = WorkDirs.fresh("4-restart-" + kind.name().toLowerCase());
    Path ledgerFile = dir.resolve("ledger");
    FencedFile ledger = new FencedFile(ledgerFile);
    List<Restart> restarts = new ArrayList<>();
    List<Integer> exitCodes = new ArrayList<>();
    try (Backend backend = kind.start(dir, true)) {
      List<ChildJvm> workers = new ArrayList<>();
      try {
        new LedgerWorker.Job(
                "restarted",
                THREADS,
                0,
                ledgerFile,
                Duration.ofSeconds(2),
                Duration.ofSeconds(5),
                true)
            .start(JVMS, backend.url(), dir, workers);
        await()
            .atMost(Duration.ofSeconds(90))
            .until(() -> confirmedAfter(dir, Long.MIN_VALUE) >= SECTIONS_BETWEEN);
        for (int r = 0; r < RESTARTS; r++) {
          long stoppedAt = System.nanoTime();
          backend.restart(DOWNTIME);
          long upAt = System.nanoTime();
          restarts.add(new Restart(stoppedAt, upAt));
          await()
              .atMost(Duration.ofSeconds(60))
              .until(() -> confirmedAfter(dir, upAt) >= SECTIONS_BETWEEN);
        }
        workers.forEach(worker -> worker.send("stop"));
        for (ChildJvm worker : workers) {
          exitCodes.add(worker.awaitExit(Duration.ofSeconds(60)));
        }
      } finally {
        workers.forEach(ChildJvm::close);
      }
    }

    List<Section> sections = Section.readAll(dir);
    LedgerCheck check = LedgerCheck.of(sections, ledger);
    List<String> violations = new ArrayList<>(check.violations());
    List<String> problems = WorkDirs.lines(dir, "errors-");
    long errors = count(problems, "error") + count(problems, "listener-error");
    long lost = count(problems, "lost");
    long refused = count(problems, "refused");
    long outages = count(problems, "outage");
    if (errors + lost + outages == 0 && kind.failsCallsDuringOutage()) {
      violations.add(
          "no client saw an error, a lost lease or its provider down: the restarts went unnoticed");
    }
    for (int i = 0; i < exitCodes.size(); i++) {
      if (exitCodes.get(i) != 0) {
        violations.add(
            "worker " + i + " exited with " + exitCodes.get(i) + "; see its log in " + dir);
      }
    }
    List<Long> downtimes = new ArrayList<>();
    List<Long> recoveries = new ArrayList<>();
    for (Restart restart : restarts) {
      downtimes.add(restart.upAt() - restart.stoppedAt());
      long maxBefore =
          sections.stream()
              .filter(s -> s.startNanos() < restart.stoppedAt())
              .mapToLong(Section::token)
              .max()
              .orElse(Long.MIN_VALUE);
      List<Section> after =
          sections.stream()
              .filter(s -> s.confirmed() && s.startNanos() > restart.stoppedAt())
              .toList();
      // Timed from the server answering again, not from its stop: the injected downtime is apart.
      after.stream()
          .mapToLong(Section::startNanos)
          .filter(start -> start > restart.upAt())
          .min()
          .ifPresent(first -> recoveries.add(first - restart.upAt()));
      long minAfter = after.stream().mapToLong(Section::token).min().orElse(Long.MAX_VALUE);
      if (minAfter <= maxBefore) {
        violations.add(
            "fencing token went back across a restart: "
                + maxBefore
                + " before, "
                + minAfter
                + " after");
      }
    }
    Figures figures =
        new Figures()
            .put("JVMs x threads", JVMS + " x " + THREADS)
            .put("restarts", restarts.size())
            .millis("injected downtime", DOWNTIME)
            .put("sections", sections.size())
            .put("sections whose lease was lost", check.unconfirmed())
            .put(
                "overlaps",
                check.history().violations().stream().filter(v -> v.startsWith("overlap")).count())
            .put("client errors", errors)
            .put("client outages seen (circuit open)", outages)
            .put("leases reported lost", lost)
            .put("late writes refused", refused)
            .latencies("server downtime", downtimes)
            .latencies("recovery (server up -> next section)", recoveries)
            .latencies("hand-off", check.handOffs());
    ChaosReport.record(4, TITLE, kind, figures, violations);

    assertThat(violations).as("logs in %s", dir).isEmpty();
    assertThat(recoveries).as("a section after every restart").hasSize(RESTARTS);
  }

  /** How many of the workers' {@code NANOS KIND MESSAGE} lines are of {@code kind}. */
  private static long count(List<String> problems, String kind) {
    return problems.stream().filter(p -> kind.equals(p.split(" ", 3)[1])).count();
  }

  private static long confirmedAfter(Path dir, long nanos) {
    return Section.readAll(dir).stream()
        .filter(s -> s.confirmed() && s.startNanos() > nanos)
        .count();
  }
}
