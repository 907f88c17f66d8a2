package dev.locksmith.core.spi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class UninterruptiblyTest {
  @AfterEach
  void clearFlag() {
    Thread.interrupted();
  }

  @Test
  void theCallRunsWithoutTheFlagWhichIsSetAgainAfterIt() {
    Thread.currentThread().interrupt();
    boolean during = Uninterruptibly.call(() -> Thread.currentThread().isInterrupted());
    assertThat(during).isFalse();
    assertThat(Thread.currentThread().isInterrupted()).isTrue();
  }

  @Test
  void aThreadThatWasNotInterruptedStaysSo() {
    assertThat(Uninterruptibly.call(() -> "answer")).isEqualTo("answer");
    assertThat(Thread.currentThread().isInterrupted()).isFalse();
  }

  @Test
  void theFlagIsSetAgainWhenTheCallFails() {
    Thread.currentThread().interrupt();
    assertThatThrownBy(
            () ->
                Uninterruptibly.call(
                    () -> {
                      throw new IOException("disk gone");
                    }))
        .isInstanceOf(IOException.class)
        .hasMessage("disk gone");
    assertThat(Thread.currentThread().isInterrupted()).isTrue();
  }

  @Test
  void anInterruptDuringTheCallStays() {
    Uninterruptibly.call(
        () -> {
          Thread.currentThread().interrupt();
          return "interrupted";
        });
    assertThat(Thread.currentThread().isInterrupted()).isTrue();
  }
}
