package dev.locksmith.tcp.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class FencingPersistenceTest {
  @TempDir Path dir;

  @Test
  void serverRestartOnTheSameDataDirKeepsTokensIncreasing() throws Exception {
    long last;
    try (LockServer first = LockServer.builder().port(0).dataDir(dir).build()) {
      int port = first.start();
      last = grantMany(port, 5);
      assertThat(last).isEqualTo(5);
    }
    try (LockServer second = LockServer.builder().port(0).dataDir(dir).build()) {
      int port = second.start();
      long next = grantMany(port, 1);
      assertThat(next).isGreaterThan(last).isEqualTo(1001);
    }
  }

  @Test
  void blocksAreReservedSoTheMarkIsWrittenOncePerBlock() throws Exception {
    FencingSequence sequence = FencingSequence.open(dir, 100);
    Path file = dir.resolve(FencingSequence.FILE_NAME);
    assertThat(sequence.next()).isEqualTo(1);
    assertThat(Files.readString(file).strip()).isEqualTo("100");
    for (int i = 2; i <= 100; i++) {
      assertThat(sequence.next()).isEqualTo(i);
    }
    assertThat(Files.readString(file).strip()).isEqualTo("100");
    assertThat(sequence.next()).isEqualTo(101);
    assertThat(Files.readString(file).strip()).isEqualTo("200");
    assertThat(FencingSequence.open(dir, 100).next()).isEqualTo(201);
  }

  @Test
  void withoutADataDirTokensStartFromTheClock() throws Exception {
    long floor = System.currentTimeMillis() * 1000;
    assertThat(FencingSequence.open(null, 100).next()).isGreaterThan(floor);
  }

  @Test
  void aCorruptMarkStopsTheServerFromStarting() throws Exception {
    Files.writeString(dir.resolve(FencingSequence.FILE_NAME), "garbage");
    LockServer server = LockServer.builder().port(0).dataDir(dir).build();
    assertThatThrownBy(server::start)
        .isInstanceOf(IOException.class)
        .hasMessageContaining("fencing.hwm")
        .hasMessageContaining("corrupt");
  }

  @Test
  void twoServersCannotShareADataDir() throws Exception {
    try (LockServer first = LockServer.builder().port(0).dataDir(dir).build()) {
      first.start();
      LockServer second = LockServer.builder().port(0).dataDir(dir).build();
      assertThatThrownBy(second::start).hasMessageContaining("in use by another lock server");
    }
  }

  private static long grantMany(int port, int count) throws IOException {
    long last = 0;
    try (LineClient c = new LineClient(port)) {
      for (int i = 0; i < count; i++) {
        String ok = c.call(i + " ACQUIRE k 5000 0 t" + i);
        last = Long.parseLong(ok.split(" ")[3]);
        assertThat(c.call("r" + i + " RELEASE k t" + i)).endsWith(" OK");
      }
    }
    return last;
  }
}
