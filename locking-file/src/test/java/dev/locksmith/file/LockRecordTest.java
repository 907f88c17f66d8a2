package dev.locksmith.file;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

class LockRecordTest {
  private static final LockRecord RECORD =
      new LockRecord(
          "orders:42\nwith\\newline",
          "0123456789abcdef",
          17,
          1_700_000_000_000L,
          30_000,
          "host/12/main",
          "host",
          12,
          "main",
          1_699_999_970_000L);

  @Test
  void roundTripsEveryFieldIncludingEscapedCharacters() throws Exception {
    assertThat(LockRecord.decode(RECORD.encode())).isEqualTo(RECORD);
  }

  @Test
  void everyTruncationFailsToParse() {
    byte[] full = RECORD.encode();
    for (int length = 0; length < full.length; length++) {
      byte[] cut = Arrays.copyOf(full, length);
      assertThatThrownBy(() -> LockRecord.decode(cut))
          .as("record cut to %d of %d bytes", length, full.length)
          .isInstanceOf(LockRecord.KeyValueText.MalformedException.class);
    }
  }

  @Test
  void aChangedByteFailsTheChecksum() {
    byte[] bytes = RECORD.encode();
    String text =
        new String(bytes, StandardCharsets.UTF_8).replace("fencing-token=17", "fencing-token=18");
    assertThatThrownBy(() -> LockRecord.decode(text.getBytes(StandardCharsets.UTF_8)))
        .isInstanceOf(LockRecord.KeyValueText.MalformedException.class)
        .hasMessageContaining("checksum mismatch");
  }

  @Test
  void aFileOfAnotherKindNamesTheHeaderLine() {
    StringBuilder text = new StringBuilder("something else\nlock-id=x\n");
    byte[] bytes = LockRecord.KeyValueText.seal(text);
    assertThatThrownBy(() -> LockRecord.decode(bytes))
        .isInstanceOf(LockRecord.KeyValueText.MalformedException.class)
        .hasMessageContaining("line 1");
  }

  @Test
  void aMissingKeyIsNamed() {
    StringBuilder text = new StringBuilder(LockRecord.HEADER + "\nlock-id=x\n");
    byte[] bytes = LockRecord.KeyValueText.seal(text);
    assertThatThrownBy(() -> LockRecord.decode(bytes))
        .isInstanceOf(LockRecord.KeyValueText.MalformedException.class)
        .hasMessageContaining("'owner-token' is missing");
  }
}
