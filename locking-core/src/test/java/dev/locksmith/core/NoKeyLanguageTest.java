package dev.locksmith.core;

import static dev.locksmith.core.Calls.call;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.locksmith.annotation.DistributedLock;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Core alone, with no key language on its class path (SpEL is in {@code locking-spel}): literal
 * keys and default names work, an expression key fails validation saying what to add.
 */
class NoKeyLanguageTest {
  private final Locksmith locksmith =
      Locksmith.builder()
          .settings(LocksmithSettings.from(Map.of("locksmith.url", "mem:no-key-language")))
          .build();

  @AfterEach
  void close() {
    locksmith.close();
  }

  static class Jobs {
    @DistributedLock
    String byDefaultName() {
      return Locks.current().lockId();
    }

    @DistributedLock(name = "report", key = "'2026-11'")
    String byLiteral() {
      return Locks.current().lockId();
    }

    @DistributedLock(name = "quote", key = " 'it''s' ")
    String byQuotedLiteral() {
      return Locks.current().key();
    }
  }

  static class Transfers {
    @DistributedLock(key = "#accountId")
    void transfer(String accountId) {}
  }

  static class EmptyLiteral {
    @DistributedLock(key = "''")
    void run() {}
  }

  @Test
  void noKeyLanguageIsFoundOnCoresClassPath() {
    assertThat(KeyLanguages.discover()).isNull();
  }

  @Test
  void defaultNamesAndLiteralKeysNeedNoKeyLanguage() throws Exception {
    assertThat(locksmith.validate(Jobs.class)).isEqualTo(3);
    assertThat(call(locksmith, new Jobs(), "byDefaultName")).isEqualTo("Jobs.byDefaultName");
    assertThat(call(locksmith, new Jobs(), "byLiteral")).isEqualTo("report:2026-11");
    assertThat(call(locksmith, new Jobs(), "byQuotedLiteral")).isEqualTo("it's");
  }

  @Test
  void expressionKeyFailsValidationSayingWhatToAdd() {
    assertThatThrownBy(() -> locksmith.validate(Transfers.class))
        .isInstanceOf(LockConfigurationException.class)
        .hasMessage(
            "@DistributedLock on dev.locksmith.core.NoKeyLanguageTest$Transfers.transfer(String),"
                + " attribute key: '#accountId' is an expression, but no key language is on the"
                + " class path: add the dependency dev.locksmith:locksmith-spel (SpEL keys such as"
                + " #accountId), or write a literal key in single quotes");
  }

  @Test
  void emptyLiteralKeyFailsValidation() {
    assertThatThrownBy(() -> locksmith.validate(EmptyLiteral.class))
        .isInstanceOf(LockConfigurationException.class)
        .hasMessageContaining("EmptyLiteral.run(), attribute key: '''' is an empty literal");
  }

  @Test
  void programmaticKeysNeedNoKeyLanguage() throws Exception {
    try (Lease lease = locksmith.acquire(LockOptions.named("report").withKey("2026-11"))) {
      assertThat(lease.lockId()).isEqualTo("report:2026-11");
    }
  }
}
