package dev.locksmith.core;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.UncheckedIOException;
import java.util.concurrent.CompletionException;
import org.junit.jupiter.api.Test;

/** One-line causes for logs and messages. */
class CausesTest {

  @Test
  void isTheSimpleClassNameAndTheFirstLineOfTheMessage() {
    assertThat(
            Causes.oneLine(
                new LockProviderException(
                    "Command timed out\nscript: local v = redis.call('get', KEYS[1])\n")))
        .isEqualTo("LockProviderException: Command timed out");
  }

  @Test
  void fallsBackToTheCauseWhenThereIsNoMessage() {
    assertThat(
            Causes.oneLine(
                new UncheckedIOException(null, new java.io.IOException("Connection reset"))))
        .isEqualTo("UncheckedIOException: IOException: Connection reset");
    assertThat(Causes.oneLine(new IllegalStateException())).isEqualTo("IllegalStateException");
    assertThat(Causes.oneLine(new CompletionException(null, null)))
        .isEqualTo("CompletionException");
  }

  @Test
  void isCappedAtTwoHundredCharacters() {
    String oneLine = Causes.oneLine(new LockProviderException("buffer: " + "2a ".repeat(500)));
    assertThat(oneLine)
        .hasSize(Causes.MAX)
        .startsWith("LockProviderException: buffer: 2a")
        .endsWith("...");
  }
}
