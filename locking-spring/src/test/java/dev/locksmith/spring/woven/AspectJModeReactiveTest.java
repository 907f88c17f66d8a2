package dev.locksmith.spring.woven;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.locksmith.core.LockBusyException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;

/**
 * {@code locksmith.mode=aspectj} with Reactor results: the woven aspect holds the lock of a {@code
 * Mono} or {@code Flux} method from subscription to the end of the publisher, through core's
 * reactive handler, as the proxy mode does. Same context as {@link AspectJModeTest}.
 */
@AspectJModeBootTest
class AspectJModeReactiveTest {
  private static final Duration BOUND = Duration.ofSeconds(5);

  private final WovenStreams streams = new WovenStreams();
  private final List<Disposable> subscriptions = new CopyOnWriteArrayList<>();

  @AfterEach
  void cancel() {
    subscriptions.forEach(Disposable::dispose);
  }

  @Test
  void monoTakesTheLockOnSubscribeAndReleasesItOnCompletion() {
    Sinks.One<String> work = Sinks.one();
    Mono<String> first = streams.mono("a-1", work.asMono());
    assertThat(streams.runs).as("the method runs only when subscribed").hasValue(0);
    assertThat(streams.mono("a-1", Mono.just("x")).block(BOUND))
        .as("nothing is held before subscription")
        .isEqualTo("x!");

    List<String> seen = new CopyOnWriteArrayList<>();
    subscriptions.add(first.subscribe(seen::add));
    Awaitility.await().atMost(BOUND).until(() -> streams.runs.get() == 2);
    assertThatThrownBy(() -> streams.mono("a-1", Mono.just("y")).block(BOUND))
        .as("held while the first result runs")
        .isInstanceOf(LockBusyException.class);

    work.tryEmitValue("done");
    Awaitility.await().atMost(BOUND).until(() -> seen.contains("done!"));
    Awaitility.await()
        .atMost(BOUND)
        .untilAsserted(
            () ->
                assertThat(streams.mono("a-1", Mono.just("again")).block(BOUND))
                    .isEqualTo("again!"));
  }

  @Test
  void fluxIsSkippedAsEmptyWhileHeldAndReleasedOnCancel() {
    Sinks.Many<Integer> work = Sinks.many().multicast().onBackpressureBuffer();
    List<Integer> seen = new CopyOnWriteArrayList<>();
    Disposable held = streams.flux("a-2", work.asFlux()).subscribe(seen::add);
    subscriptions.add(held);
    Awaitility.await().atMost(BOUND).until(() -> streams.runs.get() == 1);
    work.tryEmitNext(7);
    Awaitility.await().atMost(BOUND).until(() -> seen.contains(7));

    assertThat(streams.flux("a-2", Flux.just(1, 2)).collectList().block(BOUND))
        .as("skipped while held")
        .isEmpty();
    assertThat(streams.runs).hasValue(1);

    held.dispose();
    Awaitility.await()
        .atMost(BOUND)
        .untilAsserted(
            () ->
                assertThat(streams.flux("a-2", Flux.just(1, 2)).collectList().block(BOUND))
                    .containsExactly(1, 2));
  }
}
