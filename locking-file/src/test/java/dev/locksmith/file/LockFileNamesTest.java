package dev.locksmith.file;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import org.junit.jupiter.api.Test;

class LockFileNamesTest {
  private static final List<String> AWKWARD =
      List.of(
          "../../etc/passwd",
          "..",
          ".",
          "/",
          "a/b\\c",
          "CON",
          "nul:1",
          "*?<>|\"",
          "tab\tnew\nline",
          "Lock",
          "lock",
          "lock ",
          "\u0000",
          "ключ",
          "x".repeat(10_000));

  @Test
  void everyIdMapsToADistinctPlainNameInsideTheDirectory() {
    Path directory = Path.of("/locks");
    Set<String> lowerCaseNames = new HashSet<>();
    for (String id : AWKWARD) {
      String base = LockFileNames.baseName(id);
      assertThat(base).as("name for %s", id).matches("[A-Za-z0-9_-]{1,48}-[0-9a-f]{16}");
      Path lock = LockFileNames.of(directory, id).lock();
      assertThat(lock.getParent()).isEqualTo(directory);
      assertThat(lock.normalize()).isEqualTo(lock);
      assertThat(lowerCaseNames.add(base.toLowerCase(Locale.ROOT)))
          .as("names stay distinct on a case-insensitive file system: %s", id)
          .isTrue();
    }
  }

  @Test
  void keepsAReadablePrefix() {
    assertThat(LockFileNames.baseName("orders:42")).startsWith("orders_42-");
    assertThat(LockFileNames.baseName("x".repeat(10_000))).hasSize(48 + 1 + 16);
  }
}
