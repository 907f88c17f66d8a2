package dev.locksmith.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.locksmith.annotation.DistributedLock;
import dev.locksmith.annotation.OnBusy;
import dev.locksmith.core.Lease;
import dev.locksmith.core.LockProviders;
import dev.locksmith.core.Locksmith;
import dev.locksmith.core.spi.LockProvider;
import dev.locksmith.core.spi.LockStatus;
import dev.locksmith.testkit.BookedAccounts;
import dev.locksmith.testkit.LazySeveralKeysContract;
import dev.locksmith.testkit.SeveralKeysScenarios;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.aop.support.AopUtils;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.annotation.Bean;
import org.springframework.transaction.annotation.Transactional;
import reactor.core.publisher.Mono;

/**
 * A proxied bean whose method locks two accounts ({@code key = "{#from, #to}"}): the {@link
 * SeveralKeysScenarios} through a Spring proxy, plus the locks' life in a joined transaction.
 */
@SpringBootTest(
    classes = SeveralKeysBootTest.App.class,
    properties = {
      "locksmith.url=mem:" + SeveralKeysBootTest.STORE,
      "spring.datasource.url=jdbc:h2:mem:several-keys;DB_CLOSE_DELAY=-1"
    })
class SeveralKeysBootTest implements LazySeveralKeysContract {
  static final String STORE = "spring-several-keys";

  @Autowired Accounts accounts;
  @Autowired Locksmith locksmith;
  @Autowired InTransaction inTransaction;

  /** Another host on the same lock store. */
  private final Locksmith elsewhere =
      Locksmith.builder().defaultProvider(LockProviders.create("mem:" + STORE)).build();

  private SeveralKeysScenarios scenarios;

  @BeforeEach
  void reset() {
    accounts.book().reset();
    scenarios = new SeveralKeysScenarios(accounts, provider());
  }

  @AfterEach
  void close() {
    elsewhere.close();
  }

  @AfterEach
  void nothingLeftHeld() {
    assertThat(held()).as("every lock of the store is free").isEmpty();
  }

  @SpringBootConfiguration
  @EnableAutoConfiguration
  static class App {
    @Bean
    Accounts accounts() {
      return new Accounts();
    }

    @Bean
    InTransaction inTransaction() {
      return new InTransaction();
    }
  }

  /** A caller that opens the transaction the locked calls join. */
  public static class InTransaction {
    @Transactional
    public void run(Runnable work) {
      work.run();
    }
  }

  /** Transfers between accounts, through the proxy Spring puts around the bean. */
  public static class Accounts extends BookedAccounts {
    @Override
    @DistributedLock(name = "acct", key = "{#from, #to}", waitTimeout = "30s")
    public void transfer(String from, String to, long amount, Consumer<Lease> inside) {
      book.transfer(from, to, amount, inside);
    }

    @Override
    @DistributedLock(name = "acct", key = "{#from, #to}", onBusy = OnBusy.SKIP)
    public @Nullable String transferOrSkip(String from, String to, long amount) {
      return book.move(from, to, amount);
    }

    @Override
    @DistributedLock(name = "acct", key = "{#from, #to}", onBusy = OnBusy.FAIL)
    public String transferOrFail(String from, String to, long amount) {
      return book.move(from, to, amount);
    }

    @Override
    @DistributedLock(name = "acct", key = "{#from, #to}", waitTimeout = "200ms")
    public String transferBriefly(String from, String to, long amount) {
      return book.move(from, to, amount);
    }

    /** Holds both accounts from subscription until {@code work} completes; refuses when busy. */
    @DistributedLock(name = "acct", key = "{#from, #to}", onBusy = OnBusy.FAIL)
    public Mono<String> settleLater(String from, String to, Mono<String> work) {
      return work.map(book.settleLater());
    }

    @Override
    @DistributedLock(name = "acct", key = "#account", onBusy = OnBusy.FAIL)
    public long audit(String account) {
      return book.audit();
    }

    @Override
    @DistributedLock(name = "acct", key = "#list")
    public String settle(List<String> list) {
      return book.settle();
    }
  }

  @Override
  public Fixture severalKeys() {
    return new Fixture(scenarios, () -> elsewhere, "SeveralKeysBootTest$Accounts.settle(List)");
  }

  @Override
  public SeveralKeysScenarios.LazyTransfer lazyTransfer() {
    return (from, to, work) ->
        accounts.settleLater(from, to, Mono.fromCompletionStage(work))::toFuture;
  }

  private LockProvider provider() {
    return locksmith.providers().get("");
  }

  private List<String> held() {
    return provider().listHeld().orElseThrow().stream().map(LockStatus::lockId).sorted().toList();
  }

  @Test
  void insideTheCallEachAccountHasItsOwnLeaseHeldOnTheProvider() {
    assertThat(AopUtils.isAopProxy(accounts)).isTrue();
    assertThat(provider().listHeld()).as("the mem: store lists what it holds").isPresent();

    scenarios.insideTheCallEachAccountHasItsOwnLeaseHeldOnTheProvider();
  }

  @Override
  public void whileOneAccountIsHeldElsewhere() {
    assertThat(held()).containsExactly("acct:b");
  }

  @Test
  void inAJoinedTransactionBothAccountsStayHeldUntilItEndsAndLaterCallsReenterThem() {
    AtomicReference<Lease> first = new AtomicReference<>();

    inTransaction.run(
        () -> {
          accounts.transfer("a", "b", 1, first::set);
          assertThat(held()).as("released when the transaction ends").contains("acct:a", "acct:b");

          accounts.transfer(
              "c",
              "b",
              1,
              lease -> {
                assertThat(lease.lease("b").fencingToken())
                    .isEqualTo(first.get().lease("b").fencingToken());
                assertThat(held()).containsExactly("acct:a", "acct:b", "acct:c");
              });
          assertThat(accounts.audit("a")).isEqualTo(first.get().lease("a").fencingToken());
          assertThat(held()).containsExactly("acct:a", "acct:b", "acct:c");
        });

    assertThat(held()).isEmpty();
    assertThat(accounts.book().runs()).isEqualTo(3);
  }
}
