package dev.locksmith.core;

import java.lang.reflect.Array;
import java.util.Arrays;
import org.jspecify.annotations.Nullable;

/** Turns a key's value into the key's text, refusing values that cannot name one lock. */
final class KeyText {
  private static final ClassValue<Boolean> HAS_OWN_TO_STRING =
      new ClassValue<>() {
        @Override
        protected Boolean computeValue(Class<?> type) {
          try {
            return type.getMethod("toString").getDeclaringClass() != Object.class;
          } catch (NoSuchMethodException e) {
            return false;
          }
        }
      };

  private KeyText() {}

  /**
   * The text of a key's value.
   *
   * @param text the key expression, for messages
   * @param where the annotated method, for messages
   * @throws LockKeyException when the value is null or empty, or has no {@code toString()} of its
   *     own so that equal values would get different locks
   */
  static String of(@Nullable Object value, String text, String where) {
    String key = value == null ? null : keyText(value, text, where);
    if (key == null || key.isEmpty()) {
      throw new LockKeyException(
          where
              + ": key expression '"
              + text
              + "' evaluated to "
              + (key == null ? "null" : "an empty string")
              + "; a call without a key does not share one lock with all others, it fails");
    }
    return key;
  }

  private static String keyText(Object value, String text, String where) {
    if (value instanceof Object[] array) {
      return Arrays.deepToString(array);
    }
    if (value.getClass().isArray()) {
      Object[] boxed = new Object[Array.getLength(value)];
      for (int i = 0; i < boxed.length; i++) {
        boxed[i] = Array.get(value, i);
      }
      return Arrays.toString(boxed);
    }
    if (!HAS_OWN_TO_STRING.get(value.getClass())) {
      throw new LockKeyException(
          where
              + ": key expression '"
              + text
              + "' evaluated to a "
              + value.getClass().getName()
              + ", which has no toString() of its own, so equal values would get different"
              + " locks; select a field (e.g. #order.id) or give the type a toString()");
    }
    return value.toString();
  }
}
