package dev.locksmith.core;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;

/**
 * What the lease-timing tests share: an engine on virtual time over a {@link ScriptedProvider},
 * every event recorded and every hold's length too. After each test the provider answers any
 * renewal it holds back, and the engine closes.
 */
abstract class VirtualTimeFixture {
  final VirtualTicker ticker = new VirtualTicker();
  final ScriptedProvider provider = new ScriptedProvider(ticker);
  final RecordingListener events = new RecordingListener();

  /** How long each released lease was held, as the engine tells its listeners. */
  final List<Duration> held = new CopyOnWriteArrayList<>();

  final Locksmith locksmith =
      Locksmith.builder()
          .defaultProvider(provider)
          .ticker(ticker)
          .listener(events)
          .listener(
              new LockListener() {
                @Override
                public void released(LockEvent event, Duration heldFor) {
                  held.add(heldFor);
                }
              })
          .build();

  @AfterEach
  final void answerRenewalsAndClose() {
    provider.answerRenewals();
    locksmith.close();
  }

  /** A lock with a lease length such as {@code 3s}. */
  static LockOptions lock(String name, String ttl) {
    return LockOptions.named(name).withTtl(Durations.parse(ttl));
  }
}
