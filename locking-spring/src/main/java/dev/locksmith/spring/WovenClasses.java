package dev.locksmith.spring;

import dev.locksmith.core.internal.AnnotatedMethods;
import java.io.IOException;
import java.io.InputStream;
import java.lang.reflect.Method;
import java.nio.charset.StandardCharsets;
import java.util.Optional;

/**
 * Finds locked methods that {@code locking-aspectj}'s aspect wove, by their class files naming the
 * aspect (without loading it: {@code locking-aspectj} is optional here).
 */
final class WovenClasses {
  private static final byte[] ASPECT =
      "dev/locksmith/aspectj/DistributedLockAspect".getBytes(StandardCharsets.US_ASCII);

  private WovenClasses() {}

  /** The first locked method of {@code type} whose declaring class the aspect wove, if any. */
  static Optional<Method> firstWovenMethod(Class<?> type) {
    return AnnotatedMethods.of(type).stream()
        .filter(method -> namesTheAspect(method.getDeclaringClass()))
        .findFirst();
  }

  private static boolean namesTheAspect(Class<?> type) {
    ClassLoader loader = type.getClassLoader();
    if (loader == null) {
      return false;
    }
    try (InputStream in = loader.getResourceAsStream(type.getName().replace('.', '/') + ".class")) {
      return in != null && contains(in.readAllBytes(), ASPECT);
    } catch (IOException e) {
      return false; // unreadable: the proxy's lock is the one there is
    }
  }

  private static boolean contains(byte[] bytes, byte[] part) {
    outer:
    for (int i = 0; i <= bytes.length - part.length; i++) {
      for (int j = 0; j < part.length; j++) {
        if (bytes[i + j] != part[j]) {
          continue outer;
        }
      }
      return true;
    }
    return false;
  }
}
