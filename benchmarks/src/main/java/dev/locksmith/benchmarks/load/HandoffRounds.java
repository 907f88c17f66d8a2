package dev.locksmith.benchmarks.load;

import dev.locksmith.benchmarks.load.LoadBenchmarks.HandoffRow;
import dev.locksmith.benchmarks.load.LoadBenchmarks.Settings;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The hand-off harness of {@link LoadBenchmarks}: hand-off latency of several systems on one hot
 * key, measured in rounds interleaved across the systems and pooled into one row per system.
 */
final class HandoffRounds {
  // The harness's logger, so that its progress lines read as one run's.
  private static final Logger LOG = LoggerFactory.getLogger(LoadBenchmarks.class);

  private HandoffRounds() {}

  /**
   * Hand-off latency of {@code systems} in interleaved rounds, each system keeping its contenders'
   * clients from round to round. Before the first round each system makes a warm-up run, so that
   * every system's code is compiled before any is measured (100 hand-offs left Locksmith's longer
   * path still warming up while RLock's was not); each round then discards its first few hand-offs,
   * made as the system takes over the machine from the one before.
   */
  static List<HandoffRow> run(Settings settings, List<LockSystem> systems) throws Exception {
    int rounds = Math.max(1, settings.handoffRounds());
    int samples = Math.max(1, settings.handoffSamples() / rounds);
    Duration maxTime = settings.handoffMaxTime().dividedBy(rounds);
    Map<LockSystem, List<LockClient>> clients = new LinkedHashMap<>();
    Map<LockSystem, List<Handoff.Outcome>> outcomes = new LinkedHashMap<>();
    try {
      for (LockSystem system : systems) {
        List<LockClient> contenders = new ArrayList<>();
        clients.put(system, contenders);
        for (int i = 0; i < settings.contenders(); i++) {
          contenders.add(system.newClient(2));
        }
        outcomes.put(system, new ArrayList<>());
      }
      for (LockSystem system : systems) {
        Handoff.Outcome warmup =
            Handoff.run(
                Objects.requireNonNull(clients.get(system)),
                settings.hold(),
                0,
                settings.handoffWarmup(),
                maxTime);
        LOG.info(
            "hand-off warm-up {}: {} hand-offs in {} s",
            system.name(),
            warmup.samples().length,
            Math.round(warmup.seconds() * 10) / 10.0);
      }
      int warmup = Math.max(1, settings.handoffWarmup() / 20);
      for (int round = 0; round < rounds; round++) {
        for (LockSystem system : systems) {
          Handoff.Outcome outcome =
              Handoff.run(
                  Objects.requireNonNull(clients.get(system)),
                  settings.hold(),
                  warmup,
                  samples,
                  maxTime);
          Percentiles p = Percentiles.of(outcome.samples());
          LOG.info(
              "hand-off round {} {}: p50 {} us, p99 {} us over {} samples, {} violations",
              round + 1,
              system.name(),
              p.p50() / 1000,
              p.p99() / 1000,
              p.count(),
              outcome.violations());
          Objects.requireNonNull(outcomes.get(system)).add(outcome);
        }
      }
    } finally {
      clients.values().forEach(contenders -> contenders.forEach(LockClient::close));
    }
    List<HandoffRow> rows = new ArrayList<>();
    for (LockSystem system : systems) {
      rows.add(pooled(system, settings.contenders(), Objects.requireNonNull(outcomes.get(system))));
    }
    return rows;
  }

  /** One system's row: its rounds' samples pooled, their counts summed, each round's median. */
  private static HandoffRow pooled(
      LockSystem system, int contenders, List<Handoff.Outcome> rounds) {
    List<Long> roundP50s = new ArrayList<>();
    long[] all = new long[0];
    long violations = 0;
    long failures = 0;
    double seconds = 0;
    for (Handoff.Outcome round : rounds) {
      long[] samples = round.samples();
      roundP50s.add(Percentiles.of(samples).p50());
      long[] joined = Arrays.copyOf(all, all.length + samples.length);
      System.arraycopy(samples, 0, joined, all.length, samples.length);
      all = joined;
      violations += round.violations();
      failures += round.failures();
      seconds += round.seconds();
    }
    return new HandoffRow(
        system.name(),
        system.description(),
        contenders,
        Percentiles.of(all),
        violations,
        failures,
        seconds,
        List.copyOf(roundP50s));
  }
}
