package dev.locksmith.core;

import dev.locksmith.core.integration.KeyContextCustomizer;
import dev.locksmith.core.integration.KeyRoot;
import java.lang.reflect.Array;
import java.lang.reflect.Method;
import java.lang.reflect.Parameter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.jspecify.annotations.Nullable;
import org.springframework.expression.Expression;
import org.springframework.expression.ParseException;
import org.springframework.expression.spel.SpelCompilerMode;
import org.springframework.expression.spel.SpelNode;
import org.springframework.expression.spel.SpelParserConfiguration;
import org.springframework.expression.spel.ast.VariableReference;
import org.springframework.expression.spel.standard.SpelExpression;
import org.springframework.expression.spel.standard.SpelExpressionParser;
import org.springframework.expression.spel.support.StandardEvaluationContext;

/**
 * A key's SpEL expression, parsed and checked once per method. Parameters are variables: {@code
 * #name} (when the class keeps parameter names), {@code #p0} and {@code #a0}.
 */
final class KeyExpression {
  private final String text;
  private final String where;
  private final Expression expression;
  private final String[] boundNames;
  private final int[] boundArguments;
  // For the commonest key, one parameter such as "#accountId": its index, read without SpEL.
  private final int directArgument;
  private final KeyContextCustomizer customizer;

  private KeyExpression(
      String text,
      String where,
      Expression expression,
      Map<String, Integer> bindings,
      KeyContextCustomizer customizer) {
    this.text = text;
    this.where = where;
    this.expression = expression;
    this.boundNames = bindings.keySet().toArray(String[]::new);
    this.boundArguments = bindings.values().stream().mapToInt(Integer::intValue).toArray();
    this.customizer = customizer;
    this.directArgument =
        ((SpelExpression) expression).getAST() instanceof VariableReference
                && boundArguments.length == 1
            ? boundArguments[0]
            : -1;
  }

  /**
   * Parses and checks an expression.
   *
   * @param names parameter names from the integration, or {@code null} to read them by reflection
   * @throws LockConfigurationException when it does not parse or names an unknown variable
   */
  static KeyExpression parse(
      String text,
      Method method,
      String where,
      String @Nullable [] names,
      KeyContextCustomizer customizer) {
    SpelExpressionParser parser =
        new SpelExpressionParser(
            new SpelParserConfiguration(
                SpelCompilerMode.MIXED, method.getDeclaringClass().getClassLoader()));
    Expression expression;
    try {
      expression = parser.parseExpression(text);
    } catch (ParseException e) {
      throw new LockConfigurationException(
          where
              + ", attribute key: '"
              + text
              + "' is not a valid SpEL expression: "
              + e.getMessage(),
          e);
    }
    @Nullable String[] parameterNames = names != null ? names : reflectedNames(method);
    Map<String, Integer> bindings =
        bindVariables(text, method, where, (SpelExpression) expression, parameterNames);
    return new KeyExpression(text, where, expression, bindings, customizer);
  }

  private static @Nullable String[] reflectedNames(Method method) {
    Parameter[] parameters = method.getParameters();
    @Nullable String[] names = new String[parameters.length];
    for (int i = 0; i < parameters.length; i++) {
      names[i] = parameters[i].isNamePresent() ? parameters[i].getName() : null;
    }
    return names;
  }

  /** Maps each variable the expression uses to its argument; fails on an unknown one. */
  private static Map<String, Integer> bindVariables(
      String text,
      Method method,
      String where,
      SpelExpression expression,
      @Nullable String[] parameterNames) {
    Map<String, Integer> bindings = new LinkedHashMap<>();
    Set<String> known = new LinkedHashSet<>();
    boolean namesMissing = false;
    for (int i = 0; i < parameterNames.length; i++) {
      if (parameterNames[i] == null) {
        namesMissing = true;
      } else {
        known.add(parameterNames[i]);
      }
    }
    List<String> referenced = new ArrayList<>();
    collectVariables(expression.getAST(), referenced);
    for (String name : referenced) {
      if (name.equals("root") || name.equals("this")) {
        continue;
      }
      if (isIndexed(name, parameterNames.length)) {
        bindings.put(name, Integer.parseInt(name.substring(1)));
        continue;
      }
      if (known.contains(name)) {
        bindings.put(name, Arrays.asList(parameterNames).indexOf(name));
        continue;
      }
      String indexed =
          parameterNames.length == 0
              ? "the method has no parameters"
              : "or #p0..#p"
                  + (parameterNames.length - 1)
                  + " / #a0..#a"
                  + (parameterNames.length - 1);
      String hint =
          namesMissing
              ? "; parameter names are not available because "
                  + method.getDeclaringClass().getName()
                  + " was compiled without -parameters: compile with -parameters"
                  + " (maven-compiler-plugin <parameters>true</parameters>) or use #p0/#a0"
              : "; parameters are " + known + " (" + indexed + ")";
      throw new LockConfigurationException(
          where
              + ", attribute key: '"
              + text
              + "' refers to #"
              + name
              + ", which is not a parameter"
              + hint);
    }
    return bindings;
  }

  private static boolean isIndexed(String name, int count) {
    if (name.length() < 2 || (name.charAt(0) != 'p' && name.charAt(0) != 'a')) {
      return false;
    }
    String digits = name.substring(1);
    if (!digits.chars().allMatch(Character::isDigit) || digits.length() > 4) {
      return false;
    }
    return Integer.parseInt(digits) < count;
  }

  private static void collectVariables(SpelNode node, List<String> into) {
    if (node instanceof VariableReference) {
      into.add(node.toStringAST().substring(1));
    }
    for (int i = 0; i < node.getChildCount(); i++) {
      collectVariables(node.getChild(i), into);
    }
  }

  /**
   * Evaluates the key for one call.
   *
   * @throws LockKeyException when evaluation fails or gives null or an empty string
   */
  String evaluate(Method method, @Nullable Object[] args, Class<?> targetClass) {
    if (directArgument >= 0) {
      return checked(args[directArgument]);
    }
    StandardEvaluationContext context =
        new StandardEvaluationContext(new KeyRoot(method, args, targetClass));
    for (int i = 0; i < boundNames.length; i++) {
      context.setVariable(boundNames[i], args[boundArguments[i]]);
    }
    customizer.customize(context);
    Object value;
    try {
      value = expression.getValue(context);
    } catch (RuntimeException e) {
      throw new LockKeyException(
          where + ": key expression '" + text + "' failed: " + e.getMessage(), e);
    }
    return checked(value);
  }

  private String checked(@Nullable Object value) {
    String key = value == null ? null : keyText(value);
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

  /** The key text; refuses values whose text would differ for equal values on every call. */
  private String keyText(Object value) {
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

  String text() {
    return text;
  }
}
