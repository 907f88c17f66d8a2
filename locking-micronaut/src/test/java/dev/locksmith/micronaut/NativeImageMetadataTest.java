package dev.locksmith.micronaut;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The GraalVM metadata this module ships under {@code META-INF/native-image} names classes that
 * exist, and the SpEL root object's getters are among the public methods it opens.
 */
class NativeImageMetadataTest {
  private static final String DIR = "META-INF/native-image/dev.locksmith/locksmith-micronaut/";

  @Test
  void everyReflectedClassExists() throws Exception {
    List<String> names =
        values(read("reflect-config.json"), "name").stream()
            .filter(name -> !name.equals("<init>"))
            .toList();

    assertThat(names)
        .containsExactly(
            "dev.locksmith.core.internal.KeyRoot",
            "dev.locksmith.spel.SpelKeyLanguage",
            "dev.locksmith.annotation.DistributedLock");
    for (String name : names) {
      Class<?> type = Class.forName(name);
      assertThat(type.getName()).isEqualTo(name);
    }
    assertThat(Class.forName(names.get(1)).getConstructor()).isNotNull();
    assertThat(Class.forName(names.get(0)).getMethod("getMethodName")).isNotNull();
  }

  @Test
  void theResourcesAreTheEnginesFiles() throws IOException {
    assertThat(values(read("resource-config.json"), "pattern"))
        .containsExactly(
            "\\\\Qlocksmith.properties\\\\E",
            "\\\\QMETA-INF/services/dev.locksmith.core.spi.LockProviderFactory\\\\E",
            "\\\\QMETA-INF/services/dev.locksmith.core.internal.KeyLanguage\\\\E");
  }

  private static String read(String file) throws IOException {
    try (InputStream in =
        Objects.requireNonNull(
            NativeImageMetadataTest.class.getClassLoader().getResourceAsStream(DIR + file),
            DIR + file)) {
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
  }

  private static List<String> values(String json, String key) {
    Matcher matcher = Pattern.compile("\"" + key + "\"\\s*:\\s*\"([^\"]*)\"").matcher(json);
    List<String> values = new ArrayList<>();
    while (matcher.find()) {
      values.add(matcher.group(1));
    }
    return values;
  }
}
