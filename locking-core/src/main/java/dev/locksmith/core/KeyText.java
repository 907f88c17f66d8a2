package dev.locksmith.core;

import dev.locksmith.core.spi.LockProvider;
import java.lang.reflect.Array;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.OptionalInt;
import java.util.OptionalLong;
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
   * The keys of a key's value: one per element of a {@code Collection} or array (several keys, each
   * locked on its own, each element's text by the rules of {@link #of}), otherwise the value's
   * text; an {@code Optional} stands for its value.
   *
   * @throws LockKeyException when the collection or array is empty or holds more than {@link
   *     LockProvider#MAX_KEYS_PER_CALL} distinct keys, or an element or the value gives no key, or
   *     reading one fails (a {@code toString()} or collection that throws, as a lazily loaded
   *     entity's does outside its session)
   */
  static List<String> keys(@Nullable Object value, String text, String where) {
    try {
      return keysOf(value, text, where);
    } catch (LockKeyException e) {
      throw e;
    } catch (RuntimeException e) {
      throw new LockKeyException(
          where + ": key expression '" + text + "' failed: " + Causes.oneLine(e), e);
    }
  }

  private static List<String> keysOf(@Nullable Object given, String text, String where) {
    Object value = unwrapped(given, text, where);
    List<@Nullable Object> elements;
    if (value instanceof Collection<?> collection) {
      elements = new ArrayList<>(collection);
    } else if (value instanceof Object[] array) {
      elements = Arrays.asList(array);
    } else if (value != null && value.getClass().isArray()) {
      elements = new ArrayList<>();
      for (int i = 0; i < Array.getLength(value); i++) {
        elements.add(Array.get(value, i));
      }
    } else {
      return List.of(of(value, text, where));
    }
    if (elements.isEmpty()) {
      throw new LockKeyException(
          where
              + ": key expression '"
              + text
              + "' evaluated to an empty "
              + (value instanceof Collection ? "collection" : "array")
              + "; a call over no keys locks nothing, it fails");
    }
    List<String> keys = new ArrayList<>(elements.size());
    for (Object element : elements) {
      keys.add(of(element, text, where));
    }
    if (keys.size() > LockProvider.MAX_KEYS_PER_CALL) {
      long distinct = keys.stream().distinct().count();
      if (distinct > LockProvider.MAX_KEYS_PER_CALL) {
        throw new LockKeyException(
            where
                + ": key expression '"
                + text
                + "' evaluated to "
                + distinct
                + " distinct keys; one call may lock at most "
                + LockProvider.MAX_KEYS_PER_CALL
                + " (LockProvider.MAX_KEYS_PER_CALL): lock a coarser key, or split the work");
      }
    }
    return keys;
  }

  /**
   * The text of a key's value.
   *
   * @param text the key expression, for messages
   * @param where the annotated method, for messages
   * @throws LockKeyException when the value is null, empty or an empty {@code Optional}, or has no
   *     {@code toString()} of its own so that equal values would get different locks
   */
  static String of(@Nullable Object given, String text, String where) {
    Object value = unwrapped(given, text, where);
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

  /**
   * The value an {@code Optional} (or {@code OptionalInt}, {@code OptionalLong}, {@code
   * OptionalDouble}) holds, whose {@code toString()} would name another lock; any other value as it
   * is.
   *
   * @throws LockKeyException when the optional is empty
   */
  private static @Nullable Object unwrapped(@Nullable Object value, String text, String where) {
    Object held;
    if (value instanceof Optional<?> optional) {
      held = optional.orElse(null);
    } else if (value instanceof OptionalInt optional) {
      held = optional.isPresent() ? optional.getAsInt() : null;
    } else if (value instanceof OptionalLong optional) {
      held = optional.isPresent() ? optional.getAsLong() : null;
    } else if (value instanceof OptionalDouble optional) {
      held = optional.isPresent() ? optional.getAsDouble() : null;
    } else {
      return value;
    }
    if (held == null) {
      throw new LockKeyException(
          where
              + ": key expression '"
              + text
              + "' evaluated to an empty "
              + value.getClass().getSimpleName()
              + "; a call without a key does not share one lock with all others, it fails");
    }
    return held;
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
