package dev.locksmith.micronaut.app;

import static org.assertj.core.api.Assertions.assertThat;

import dev.locksmith.core.LockProviders;
import dev.locksmith.core.Locksmith;
import dev.locksmith.tcp.server.LockServer;
import dev.locksmith.testkit.LazySeveralKeysContract;
import dev.locksmith.testkit.SeveralKeysScenarios;
import io.micronaut.aop.Intercepted;
import io.micronaut.context.ApplicationContext;
import java.io.IOException;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import reactor.core.publisher.Mono;

/**
 * A bean whose method locks two accounts ({@code key = "{#from, #to}"}) in a real application
 * context against the in-process TCP lock server: the {@link SeveralKeysScenarios} through the
 * interceptor Micronaut generates for the bean (those the other integrations run alike through
 * {@link LazySeveralKeysContract}).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class SeveralKeysInterceptorTest implements LazySeveralKeysContract {
  private LockServer server;
  private ApplicationContext context;
  private AccountTransfers transfers;
  private SeveralKeysScenarios scenarios;

  /** Another host on the same lock server. */
  private Locksmith elsewhere;

  @BeforeAll
  void start() throws IOException {
    server = LockServer.builder().port(0).build();
    String url = "tcp://127.0.0.1:" + server.start();
    context = ApplicationContext.run(Map.of("locksmith.url", url), "several-keys");
    transfers = context.getBean(AccountTransfers.class);
    scenarios =
        new SeveralKeysScenarios(transfers, context.getBean(Locksmith.class).providers().get(""));
    elsewhere = Locksmith.builder().defaultProvider(LockProviders.create(url)).build();
  }

  @AfterAll
  void stop() {
    elsewhere.close();
    context.close();
    server.close();
  }

  @Override
  public Fixture severalKeys() {
    return new Fixture(scenarios, () -> elsewhere, "AccountTransfers.settle(List)");
  }

  @Override
  public SeveralKeysScenarios.LazyTransfer lazyTransfer() {
    return (from, to, work) ->
        transfers.settleLater(from, to, Mono.fromCompletionStage(work))::toFuture;
  }

  @BeforeEach
  void reset() {
    transfers.book().reset();
  }

  /** Reads the locks' holders from the server without taking them, so nothing races the test. */
  @AfterEach
  void nothingLeftHeld() {
    scenarios.assertNothingHeld();
  }

  @Test
  void insideTheCallEachAccountHasItsOwnLeaseHeldOnTheServer() {
    assertThat(transfers).as("the bean Micronaut intercepts").isInstanceOf(Intercepted.class);

    scenarios.insideTheCallEachAccountHasItsOwnLeaseHeldOnTheProvider();
  }
}
