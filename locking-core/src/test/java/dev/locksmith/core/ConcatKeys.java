package dev.locksmith.core;

import dev.locksmith.core.internal.KeyLanguage;
import dev.locksmith.core.internal.KeyRoot;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * A key language for core's own tests, so that they exercise the engine's key rules without SpEL
 * (which lives in {@code locking-spel}, a module that depends on core): variables ({@code #name},
 * {@code #p0}) and quoted text joined by {@code +}, as in {@code #accountId + ':' + #p1}. Public
 * for the tests of the integration package.
 */
public final class ConcatKeys implements KeyLanguage {
  /** The one instance; give it to {@link LocksmithBuilder#keyLanguage}. */
  public static final ConcatKeys LANGUAGE = new ConcatKeys();

  private ConcatKeys() {}

  @Override
  public String name() {
    return "concat";
  }

  @Override
  public CompiledKey compile(String expression, Method method) {
    List<String> parts = new ArrayList<>();
    for (String part : expression.split("\\+", -1)) {
      String trimmed = part.strip();
      if (!trimmed.matches("#[A-Za-z_][A-Za-z0-9_]*|'[^']*'")) {
        throw new IllegalArgumentException("'" + trimmed + "' is neither #variable nor 'text'");
      }
      parts.add(trimmed);
    }
    List<String> variables =
        parts.stream().filter(p -> p.startsWith("#")).map(p -> p.substring(1)).distinct().toList();
    return new CompiledKey() {
      @Override
      public List<String> variables() {
        return variables;
      }

      @Override
      public boolean isSingleVariable() {
        return parts.size() == 1 && variables.size() == 1;
      }

      @Override
      public @Nullable Object evaluate(KeyRoot root, Map<String, @Nullable Object> values) {
        StringBuilder key = new StringBuilder();
        for (String part : parts) {
          key.append(
              part.startsWith("#")
                  ? values.get(part.substring(1))
                  : part.substring(1, part.length() - 1));
        }
        return key.toString();
      }
    };
  }
}
