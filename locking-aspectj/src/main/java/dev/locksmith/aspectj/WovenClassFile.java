package dev.locksmith.aspectj;

import java.io.IOException;
import java.io.InputStream;
import java.lang.reflect.Method;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import org.jspecify.annotations.Nullable;

/**
 * Tells, from a class's own class file, whether its around bodies may come from {@link
 * DistributedLockAspect}: any around advice (Spring's transaction aspect, a logging aspect) leaves
 * {@code <name>_aroundBody<N>} methods, but only a class woven with this aspect names it. A class
 * woven at load time has its around bodies in memory only, not in the file it was read from; the
 * file then cannot tell, and the answer is yes.
 */
final class WovenClassFile {
  private static final byte[] AROUND_BODY = "_aroundBody".getBytes(StandardCharsets.UTF_8);
  private static final byte[] LOCK_ASPECT =
      DistributedLockAspect.class.getName().replace('.', '/').getBytes(StandardCharsets.UTF_8);

  private WovenClassFile() {}

  /**
   * Whether the class may be woven with the lock aspect: its class file names the aspect, or holds
   * fewer around bodies than the loaded class (woven at load time), or cannot be read.
   */
  static boolean mayBeWovenWithTheLockAspect(Class<?> type) {
    byte[] file = read(type);
    if (file == null) {
      return true;
    }
    long loadedAroundBodies =
        Arrays.stream(type.getDeclaredMethods())
            .map(Method::getName)
            .filter(name -> name.contains("_aroundBody"))
            .count();
    return occurrences(file, LOCK_ASPECT) > 0
        || occurrences(file, AROUND_BODY) < loadedAroundBodies;
  }

  private static byte @Nullable [] read(Class<?> type) {
    try (InputStream in =
        type.getResourceAsStream("/" + type.getName().replace('.', '/') + ".class")) {
      return in == null ? null : in.readAllBytes();
    } catch (IOException e) {
      return null;
    }
  }

  /** How often {@code part} stands in {@code bytes} (each constant-pool name stands once). */
  private static int occurrences(byte[] bytes, byte[] part) {
    int count = 0;
    for (int i = 0; i <= bytes.length - part.length; i++) {
      if (Arrays.equals(bytes, i, i + part.length, part, 0, part.length)) {
        count++;
      }
    }
    return count;
  }
}
