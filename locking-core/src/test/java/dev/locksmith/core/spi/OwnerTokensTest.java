package dev.locksmith.core.spi;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

class OwnerTokensTest {
  @Test
  void tokensAreTheProcessPrefixThenASequenceInHexWithoutLeadingZeros() {
    String first = OwnerTokens.newToken();
    String second = OwnerTokens.newToken();

    assertThat(first).matches("[0-9a-f]{24}-[1-9a-f][0-9a-f]*");
    String prefix = first.substring(0, 25);
    assertThat(second).startsWith(prefix);
    long a = Long.parseLong(first.substring(25), 16);
    long b = Long.parseLong(second.substring(25), 16);
    assertThat(b).isGreaterThan(a);
  }

  @Test
  void tokensNeverRepeatInAProcess() {
    Set<String> seen = new HashSet<>();
    for (int i = 0; i < 10_000; i++) {
      assertThat(seen.add(OwnerTokens.newToken())).isTrue();
    }
  }

  @Test
  void theCallerIsDescribedAsHostPidAndThread() {
    String described = OwnerTokens.describeCaller();

    assertThat(described)
        .isEqualTo(
            OwnerTokens.host()
                + "/"
                + ProcessHandle.current().pid()
                + "/"
                + Thread.currentThread().getName());
  }

  @Test
  void aRenamedThreadIsDescribedByItsNewName() {
    Thread thread = Thread.currentThread();
    String name = thread.getName();
    try {
      OwnerTokens.describeCaller();
      thread.setName(name + "-renamed");
      assertThat(OwnerTokens.describeCaller()).endsWith("/" + name + "-renamed");
      thread.setName(name);
      assertThat(OwnerTokens.describeCaller()).endsWith("/" + name);
    } finally {
      thread.setName(name);
    }
  }
}
