package dev.locksmith.tcp.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The token rule, max(last + 1, clock in microseconds) above the stored mark, with a clock the test
 * sets: a clock that stands still, jumps or goes back, crashes mid-span, and failed writes.
 */
class FencingSequenceTest {
  @TempDir Path dir;
  private final AtomicLong clock = new AtomicLong(1_000);

  private long storedMark() throws IOException {
    return StoredNumber.read(dir.resolve(FencingSequence.FILE_NAME), text -> text);
  }

  @Test
  void tokensAreTheClockOrOneMoreThanTheLastWithoutADataDir() throws Exception {
    FencingSequence sequence = FencingSequence.open(null, 100, clock::get);
    assertThat(sequence.next()).isEqualTo(1_000);
    assertThat(sequence.next()).as("clock standing still").isEqualTo(1_001);
    clock.set(5_000);
    assertThat(sequence.next()).isEqualTo(5_000);
    clock.set(10);
    assertThat(sequence.next()).as("clock set back").isEqualTo(5_001);
    assertThat(Files.list(dir)).isEmpty();
  }

  @Test
  void theMarkIsWrittenBeforeATokenAboveItAndReservesASpan() throws Exception {
    FencingSequence sequence = FencingSequence.open(dir, 100, clock::get);
    assertThat(sequence.next()).isEqualTo(1_000);
    assertThat(storedMark()).isEqualTo(1_099);
    for (long t = 1_001; t <= 1_099; t++) {
      clock.set(t);
      assertThat(sequence.next()).isEqualTo(t);
    }
    assertThat(storedMark()).as("no write within the span").isEqualTo(1_099);
    clock.set(1_100);
    assertThat(sequence.next()).isEqualTo(1_100);
    assertThat(storedMark()).isEqualTo(1_199);
    clock.set(50_000);
    assertThat(sequence.next()).as("the clock jumps past the span").isEqualTo(50_000);
    assertThat(storedMark()).isEqualTo(50_099);
  }

  @Test
  void aCrashMidSpanAndARestartWithinTheSameMicrosecondsGoHigher() throws Exception {
    FencingSequence before = FencingSequence.open(dir, 100, clock::get);
    long last = 0;
    for (int i = 0; i < 5; i++) {
      last = before.next(); // 1000..1004, mark 1099; then a crash: no close()
    }
    assertThat(storedMark()).isEqualTo(1_099);
    // The clock has not moved (nor would it, within ~100 us): the start waits for it, briefly,
    // and then continues after the mark anyway.
    FencingSequence after = FencingSequence.open(dir, 100, clock::get);
    long next = after.next();
    assertThat(next).isGreaterThan(last).isGreaterThan(1_099);
    assertThat(after.next()).isGreaterThan(next);
  }

  @Test
  void aRestartWaitsForTheClockToPassAMarkLeftByACrash() throws Exception {
    FencingSequence before = FencingSequence.open(dir, 100, clock::get);
    before.next();
    AtomicLong reads = new AtomicLong();
    // A clock that moves 10 us each time it is read.
    FencingSequence after =
        FencingSequence.open(dir, 100, () -> 1_000 + 10 * reads.incrementAndGet());
    long next = after.next();
    assertThat(next).isGreaterThan(1_099);
    assertThat(next).as("taken from the clock, not run ahead of it").isLessThanOrEqualTo(1_120);
  }

  @Test
  void closeLowersTheMarkToTheLastTokenSoARestartDoesNotWait() throws Exception {
    FencingSequence before = FencingSequence.open(dir, 100, clock::get);
    before.next();
    clock.set(1_010);
    assertThat(before.next()).isEqualTo(1_010);
    clock.set(1_011);
    before.close();
    assertThat(storedMark()).isEqualTo(1_010);
    assertThatThrownBy(before::next).isInstanceOf(IllegalStateException.class);
    FencingSequence after = FencingSequence.open(dir, 100, clock::get);
    assertThat(after.next()).isEqualTo(1_011);
    assertThat(storedMark()).isEqualTo(1_110);
  }

  @Test
  void aClockSetBackAcrossARestartStillGoesHigherWithTheMark() throws Exception {
    clock.set(10_000_000);
    FencingSequence before = FencingSequence.open(dir, 100, clock::get);
    long last = before.next();
    clock.set(1_000); // ten seconds back: more than a span, so the start does not wait
    FencingSequence after = FencingSequence.open(dir, 100, clock::get);
    assertThat(after.next()).isGreaterThan(last).isGreaterThan(10_000_099);
  }

  @Test
  void aMarkThatCannotBeWrittenUsesUpNoToken() throws Exception {
    FencingSequence sequence = FencingSequence.open(dir, 100, clock::get);
    Path blocker = Files.createDirectory(dir.resolve(FencingSequence.FILE_NAME + ".tmp"));
    assertThatThrownBy(sequence::next)
        .isInstanceOf(UncheckedIOException.class)
        .hasMessageContaining("cannot persist fencing high-water mark");
    assertThat(sequence.last()).isZero();
    Files.delete(blocker);
    assertThat(sequence.next()).isEqualTo(1_000);
    assertThat(storedMark()).isEqualTo(1_099);
  }

  @Test
  void anExhaustedSequenceRefusesRatherThanWrapping() throws Exception {
    Files.writeString(dir.resolve(FencingSequence.FILE_NAME), Long.MAX_VALUE + "\n");
    FencingSequence sequence = FencingSequence.open(dir, 100, clock::get);
    assertThatThrownBy(sequence::next).isInstanceOf(UncheckedIOException.class);
  }
}
