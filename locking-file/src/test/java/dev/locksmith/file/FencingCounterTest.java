package dev.locksmith.file;

import static dev.locksmith.file.TestProviders.request;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.locksmith.core.LockProviderException;
import dev.locksmith.core.spi.LeaseGrant;
import dev.locksmith.core.spi.ProviderUrl;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The two-slot fencing counter: updates alternate between the slots in place, a write cut short at
 * any byte leaves the previous value readable (never a lower one), and a file without a valid slot
 * fails naming the file instead of counting from 0 again.
 */
class FencingCounterTest {
  private static final String ID = "orders:7";
  private static final Duration LONG = Duration.ofSeconds(30);

  @TempDir Path dir;
  private LockDirectory directory;
  private LockFileNames.LockFiles files;

  @BeforeEach
  void setUp() {
    directory =
        new LockDirectory(FileLockSettings.from(ProviderUrl.parse(TestProviders.url(dir, ""))));
    files = LockFileNames.of(dir, ID);
  }

  private long read() throws Exception {
    try (FencingCounter counter = directory.openCounter(files, ID)) {
      return counter.read(TestHooks.NONE);
    }
  }

  /** Stores as an acquisition does: in place where it can, else by replacing the file. */
  private void store(long token) throws Exception {
    try (FencingCounter counter = directory.openCounter(files, ID)) {
      counter.read(TestHooks.NONE);
      String stamp = CounterFile.newStamp();
      if (counter.storeInPlace(token, stamp)) {
        assertThat(counter.stillInPlace(stamp)).isTrue();
        return;
      }
    }
    CounterReplacement.replace(
        directory,
        files,
        ID,
        CounterReplacement.Goal.OWN,
        files.taken("test"),
        List.of(),
        current -> token,
        CounterFile.newStamp(),
        () -> {});
  }

  private int slotLength() {
    return CounterFile.slot(ID, 0, 0).length;
  }

  @Test
  void updatesAlternateBetweenTwoBlockAlignedSlotsInPlace() throws Exception {
    assertThat(read()).isZero();
    store(1);
    assertThat(Files.size(files.fence())).isEqualTo(slotLength() + CounterFile.STAMP_LENGTH);
    Object inode = Files.readAttributes(files.fence(), "unix:ino").get("ino");

    store(2);
    store(3);

    byte[] bytes = Files.readAllBytes(files.fence());
    assertThat(bytes).hasSize(CounterFile.BLOCK + slotLength() + CounterFile.STAMP_LENGTH);
    String slot0 = new String(bytes, 0, slotLength(), StandardCharsets.UTF_8);
    String slot1 = new String(bytes, CounterFile.BLOCK, slotLength(), StandardCharsets.UTF_8);
    assertThat(slot0).startsWith("locksmith-fence 2\n").contains("last-token=0000000000000000003");
    assertThat(slot1).contains("slot=1\n", "last-token=0000000000000000002");
    assertThat(read()).isEqualTo(3);
    assertThat(Files.readAttributes(files.fence(), "unix:ino").get("ino"))
        .as("updated in place, not replaced")
        .isEqualTo(inode);
  }

  @Test
  void aStoreMustRaiseTheCounter() throws Exception {
    store(5);
    try (FencingCounter counter = directory.openCounter(files, ID)) {
      counter.read(TestHooks.NONE);
      assertThatThrownBy(() -> counter.storeInPlace(5, CounterFile.newStamp()))
          .isInstanceOf(IllegalArgumentException.class);
    }
    assertThat(read()).isEqualTo(5);
  }

  @Test
  void aWriteCutShortAtAnyByteLeavesThePreviousValue() throws Exception {
    store(1);
    store(2);
    store(3);
    // Slot 0 holds 3, slot 1 holds 2: the next update (4) goes to slot 1.
    byte[] before = Files.readAllBytes(files.fence());
    byte[] next = CounterFile.slot(ID, 1, 4);
    for (int cut = 0; cut <= next.length; cut++) {
      byte[] torn = before.clone();
      System.arraycopy(next, 0, torn, CounterFile.BLOCK, cut);
      Files.write(files.fence(), torn);
      boolean complete =
          Arrays.equals(
              torn, CounterFile.BLOCK, CounterFile.BLOCK + next.length, next, 0, next.length);
      // Only the final newline left unwritten already matches the old slot's last byte.
      assertThat(complete).isEqualTo(cut >= next.length - 1);
      assertThat(read()).as("cut after %d bytes", cut).isEqualTo(complete ? 4 : 3);

      byte[] zeroed = before.clone();
      Arrays.fill(zeroed, CounterFile.BLOCK, CounterFile.BLOCK + cut, (byte) 0);
      Files.write(files.fence(), zeroed);
      assertThat(read()).as("%d bytes zeroed", cut).isEqualTo(3);
    }
  }

  @Test
  void aFirstWriteOfSlotOneCutShortLeavesSlotZero() throws Exception {
    store(1);
    byte[] first = Files.readAllBytes(files.fence());
    byte[] next = CounterFile.slot(ID, 1, 2);
    for (int cut = 0; cut < next.length; cut += 7) {
      byte[] torn = Arrays.copyOf(first, CounterFile.BLOCK + cut);
      System.arraycopy(next, 0, torn, CounterFile.BLOCK, cut);
      Files.write(files.fence(), torn);
      assertThat(read()).as("cut after %d bytes", cut).isEqualTo(1);
    }
    store(2);
    assertThat(read()).isEqualTo(2);
  }

  @Test
  void aTornSlotIsRepairedByTheNextUpdate() throws Exception {
    store(1);
    store(2);
    byte[] bytes = Files.readAllBytes(files.fence());
    bytes[10] ^= 0x20; // slot 0 (token 1) garbled
    Files.write(files.fence(), bytes);
    assertThat(read()).isEqualTo(2);

    store(3);
    assertThat(read()).isEqualTo(3);
    byte[] repaired = Files.readAllBytes(files.fence());
    assertThat(new String(repaired, 0, slotLength(), StandardCharsets.UTF_8))
        .contains("last-token=0000000000000000003");
  }

  @Test
  void bothSlotsGarbledFailsNamingTheFileAndNeverCountsFromZero() throws Exception {
    FileLockProvider provider = TestProviders.open(dir, "");
    try {
      for (int i = 0; i < 3; i++) {
        LeaseGrant lease = provider.tryAcquire(request(ID, LONG)).orElseThrow();
        assertThat(provider.release(lease)).isTrue();
      }
      byte[] bytes = Files.readAllBytes(files.fence());
      bytes[30] ^= 0x01;
      bytes[CounterFile.BLOCK + 30] ^= 0x01;
      Files.write(files.fence(), bytes);

      for (int attempt = 0; attempt < 2; attempt++) {
        assertThatThrownBy(() -> provider.tryAcquire(request(ID, LONG)))
            .isInstanceOf(LockProviderException.class)
            .hasMessageContaining(files.fence().toString())
            .hasMessageContaining("slot 0")
            .hasMessageContaining("slot 1")
            .hasMessageContaining("checksum mismatch")
            .hasMessageContaining("repeated fencing token")
            .hasMessageContaining("not reset to 0");
        assertThat(files.lock()).doesNotExist();
        assertThat(Files.readAllBytes(files.fence())).as("left as found").isEqualTo(bytes);
      }
    } finally {
      provider.close();
    }
  }

  @Test
  void anEmptyCounterFileFailsRatherThanCountingFromZero() throws Exception {
    Files.createFile(files.fence());
    assertThatThrownBy(this::read)
        .isInstanceOf(LockProviderException.class)
        .hasMessageContaining(files.fence().toString())
        .hasMessageContaining("slot 0 (bytes 0-")
        .hasMessageContaining("missing");
  }

  @Test
  void slotsOfAnotherLockIdAreRejected() throws Exception {
    store(9);
    // Same length of id, so the slots sit at the same places.
    LockFileNames.LockFiles other = LockFileNames.of(dir, "orders:8");
    Files.copy(files.fence(), other.fence());
    assertThatThrownBy(
            () -> {
              try (FencingCounter counter = directory.openCounter(other, "orders:8")) {
                counter.read(TestHooks.NONE);
              }
            })
        .isInstanceOf(LockProviderException.class)
        .hasMessageContaining("belongs to lock id '" + ID + "'");
  }

  @Test
  void aHolderThatCrashedMidCounterWriteNeverHasItsTokenRepeated() throws Exception {
    FileLockProvider provider = TestProviders.open(dir, "skew=0ms");
    try {
      LeaseGrant first = provider.tryAcquire(request(ID, LONG)).orElseThrow();
      assertThat(provider.release(first)).isTrue();
      LeaseGrant second = provider.tryAcquire(request(ID, LONG)).orElseThrow();
      assertThat(provider.release(second)).isTrue();
      assertThat(read()).isEqualTo(second.fencingToken());
      // A third holder wrote its token into its lock file and died half-way through writing the
      // slot that does not hold the current value.
      long third = second.fencingToken() + 1;
      long now = System.currentTimeMillis();
      LockRecord crashed =
          new LockRecord(
              ID, "dead", third, now - 10_000, 1, "dead/1/t", "dead", 1, "t", now - 11_000);
      Files.write(files.lock(), crashed.encode());
      byte[] bytes = Files.readAllBytes(files.fence());
      int free =
          new String(bytes, 0, slotLength(), StandardCharsets.UTF_8)
                  .contains("last-token=" + String.format("%019d", second.fencingToken()))
              ? CounterFile.BLOCK
              : 0;
      byte[] next = CounterFile.slot(ID, free == 0 ? 0 : 1, third);
      // The write stopped just before the last byte in which the new slot differs from the old
      // one, so that the slot is torn whatever the two hold (cutting a fixed 3 bytes off left it
      // whole once in a few thousand runs, when those bytes were the same in both).
      int cut = next.length - 1;
      while (next[cut] == bytes[free + cut]) {
        cut--;
      }
      System.arraycopy(next, 0, bytes, free, cut);
      Files.write(files.fence(), bytes);
      assertThat(read()).as("the torn slot is ignored").isEqualTo(second.fencingToken());

      LeaseGrant fourth = provider.tryAcquire(request(ID, LONG)).orElseThrow();

      assertThat(fourth.fencingToken()).isGreaterThan(third);
      assertThat(read()).isEqualTo(fourth.fencingToken());
    } finally {
      provider.close();
    }
  }

  @Test
  void aCounterFileInTheEarlierFormatIsReadAndThenReplaced() throws Exception {
    // A token well above the clock floor, so that the grant can only come from the file.
    long token = FencingCounter.clockFloor() + 1_000_000_000_000L;
    StringBuilder text =
        new StringBuilder("locksmith-fence 1\nlock-id=" + ID + "\nlast-token=" + token + "\n");
    Files.write(files.fence(), LockRecord.KeyValueText.seal(text));
    FileLockProvider provider = TestProviders.open(dir, "");
    try {
      LeaseGrant lease = provider.tryAcquire(request(ID, LONG)).orElseThrow();
      assertThat(lease.fencingToken()).isEqualTo(token + 1);
      assertThat(Files.readString(files.fence())).startsWith("locksmith-fence 2\n");
      assertThat(read()).isEqualTo(token + 1);
    } finally {
      provider.close();
    }
  }
}
