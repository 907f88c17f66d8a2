package dev.locksmith.spring.woven;

import static org.assertj.core.api.Assertions.assertThat;

import dev.locksmith.aspectj.AspectLocksmith;
import dev.locksmith.core.LockProviders;
import dev.locksmith.core.Locksmith;
import dev.locksmith.testkit.LazySeveralKeysContract;
import dev.locksmith.testkit.SeveralKeysScenarios;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.aop.support.AopUtils;
import org.springframework.beans.factory.annotation.Autowired;
import reactor.core.publisher.Mono;

/**
 * {@code locksmith.mode=aspectj} with a woven bean whose method locks two accounts ({@code key =
 * "{#from, #to}"}): the {@link SeveralKeysScenarios} against the Spring-built engine, which the
 * aspect uses, with no Spring proxy around the bean. Same context as {@link AspectJModeTest}.
 */
@AspectJModeBootTest
class SeveralKeysAspectJModeTest implements LazySeveralKeysContract {
  @Autowired WovenAccounts accounts;
  @Autowired Locksmith locksmith;

  /** Another host on the lock store of the context's {@code locksmith.url}. */
  private final Locksmith elsewhere =
      Locksmith.builder().defaultProvider(LockProviders.create("mem:aspectj-mode")).build();

  private SeveralKeysScenarios scenarios;

  @Override
  public Fixture severalKeys() {
    return new Fixture(scenarios, () -> elsewhere, "WovenAccounts.settle(List)");
  }

  @Override
  public SeveralKeysScenarios.LazyTransfer lazyTransfer() {
    return (from, to, work) ->
        accounts.settleLater(from, to, Mono.fromCompletionStage(work))::toFuture;
  }

  @BeforeEach
  void reset() {
    accounts.book().reset();
    scenarios = new SeveralKeysScenarios(accounts, locksmith.providers().get(""));
  }

  @AfterEach
  void close() {
    elsewhere.close();
  }

  @Test
  void insideTheCallEachAccountHasItsOwnLeaseHeldOnTheProvider() {
    assertThat(AopUtils.isAopProxy(accounts)).isFalse();
    assertThat(AspectLocksmith.engine()).isSameAs(locksmith);

    scenarios.insideTheCallEachAccountHasItsOwnLeaseHeldOnTheProvider();
  }
}
