package dev.locksmith.tcp.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** Lock ids on the wire, as a hand-written client may send them. */
class LockIdsTest {

  @Test
  void aCharacterBeyondTheBmpBesideAnEscapeKeepsItsIdentity() {
    assertThat(LockIds.decode("\uD83D\uDE00%41")).isEqualTo("\uD83D\uDE00A");
    assertThat(LockIds.decode("\uD83D\uDE01%41")).isEqualTo("\uD83D\uDE01A");
  }

  @Test
  void onlyAsciiHexDigitsMakeAnEscape() {
    assertThatThrownBy(() -> LockIds.decode("a%\uFF21\uFF21"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("invalid %-escape")
        .hasMessageContaining("index 1");
    assertThat(LockIds.decode("a%3Ab%3a")).isEqualTo("a:b:");
  }

  @Test
  void encodingAndDecodingRoundTrip() {
    String id = "orders 42/\u00e9\uD83D\uDE00%";
    assertThat(LockIds.decode(LockIds.encode(id))).isEqualTo(id);
  }

  @Test
  void aLoneSurrogateHasAnEscapeOfItsOwn() {
    for (String id : new String[] {"a\uD800", "\uDC00b", "\uD83D?", "x\uDBFF%\uD83D\uDE00"}) {
      assertThat(LockIds.encode(id)).doesNotContain("%3F").contains("%u");
      assertThat(LockIds.decode(LockIds.encode(id))).isEqualTo(id);
    }
    assertThat(LockIds.encode("a\uD800")).isEqualTo("a%uD800");
    assertThat(LockIds.decode("%uD83D%uDE00"))
        .as("a pair is its code point")
        .isEqualTo("\uD83D\uDE00");
    assertThatThrownBy(() -> LockIds.decode("a%u00E9"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("invalid %u-escape at index 1");
    assertThatThrownBy(() -> LockIds.decode("a%uD8"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("invalid %u-escape");
  }
}
