package dev.locksmith.spel;

import java.lang.reflect.Field;
import java.lang.reflect.Member;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.Type;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.jspecify.annotations.Nullable;
import org.springframework.expression.spel.SpelNode;
import org.springframework.expression.spel.ast.CompoundExpression;
import org.springframework.expression.spel.ast.MethodReference;
import org.springframework.expression.spel.ast.PropertyOrFieldReference;
import org.springframework.expression.spel.ast.VariableReference;
import org.springframework.expression.spel.support.ReflectivePropertyAccessor;

/**
 * Checks, from the parameters' declared types alone, that each property or method an expression
 * reads from a parameter ({@code #order.customer}, {@code #order.customer().name()}) exists, so
 * that a misspelt name fails at validation instead of on every call. Only a final type (a record,
 * an enum, {@code String}, a final class) is checked, with SpEL's own property lookup: a subclass
 * of any other type may have the name.
 */
final class DeclaredTypes {
  private DeclaredTypes() {}

  /**
   * Throws when the expression reads a property or calls a method that the declared type of the
   * parameter (or of the value read before it) does not have.
   *
   * @throws IllegalArgumentException naming the variable, the type and the missing name
   */
  static void check(SpelNode node, Map<String, Type> variableTypes) {
    if (node instanceof CompoundExpression && node.getChild(0) instanceof VariableReference first) {
      Type declared = variableTypes.get(first.toStringAST().substring(1));
      if (declared != null) {
        checkChain(node, first.toStringAST(), rawClass(declared));
      }
    }
    for (int i = 0; i < node.getChildCount(); i++) {
      check(node.getChild(i), variableTypes);
    }
  }

  private static void checkChain(SpelNode chain, String read, @Nullable Class<?> type) {
    for (int i = 1; i < chain.getChildCount() && type != null && checkable(type); i++) {
      SpelNode step = chain.getChild(i);
      Member found;
      if (type == Optional.class && isNullSafe(step)) {
        return; // SpEL unwraps an Optional on ?. and reads from its value
      }
      if (step instanceof PropertyOrFieldReference property) {
        // A lookup of its own: SpEL's caches the methods of every class it reads, for good.
        found = new Lookup().property(type, property.getName());
        if (found == null) {
          throw missing(read, type, "property " + property.getName(), propertyForms(property));
        }
      } else if (step instanceof MethodReference method) {
        List<Method> named = methods(type, method.getName(), step.getChildCount());
        if (named.isEmpty()) {
          throw missing(
              read,
              type,
              "method " + method.getName() + " with " + step.getChildCount() + " argument(s)",
              "no public method " + method.getName() + " taking " + step.getChildCount());
        }
        found = named.size() == 1 ? named.get(0) : null;
      } else {
        return;
      }
      if (found == null) {
        return;
      }
      read = read + "." + step.toStringAST();
      type = found instanceof Field field ? field.getType() : ((Method) found).getReturnType();
    }
  }

  /** The class of a declared type, or {@code null} for a type variable or wildcard. */
  private static @Nullable Class<?> rawClass(Type declared) {
    if (declared instanceof Class<?> type) {
      return type;
    }
    return declared instanceof ParameterizedType parameterized
            && parameterized.getRawType() instanceof Class<?> raw
        ? raw
        : null;
  }

  private static boolean isNullSafe(SpelNode step) {
    return step instanceof PropertyOrFieldReference property && property.isNullSafe()
        || step instanceof MethodReference method && method.isNullSafe();
  }

  /**
   * Whether no subclass can add a name: a final class that is not an array, a primitive or {@code
   * Class} (whose value's static members SpEL reads too).
   */
  private static boolean checkable(Class<?> type) {
    return type != Class.class
        && !type.isArray()
        && !type.isPrimitive()
        && Modifier.isFinal(type.getModifiers());
  }

  /** The public methods of the type with that name that take {@code arguments} (or varargs). */
  private static List<Method> methods(Class<?> type, String name, int arguments) {
    return Arrays.stream(type.getMethods())
        .filter(m -> m.getName().equals(name))
        .filter(
            m ->
                m.isVarArgs()
                    ? arguments >= m.getParameterCount() - 1
                    : m.getParameterCount() == arguments)
        .toList();
  }

  private static String propertyForms(PropertyOrFieldReference property) {
    String name = property.getName();
    String capital =
        name.isEmpty() ? name : Character.toUpperCase(name.charAt(0)) + name.substring(1);
    return "no get" + capital + "(), is" + capital + "(), " + name + "() or public field " + name;
  }

  private static IllegalArgumentException missing(
      String read, Class<?> type, String what, String forms) {
    return new IllegalArgumentException(
        "reads "
            + what
            + " of "
            + read
            + ", whose type "
            + type.getName()
            + " has none ("
            + forms
            + ")");
  }

  /** SpEL's own reflective lookup of a property's getter or public field. */
  private static final class Lookup extends ReflectivePropertyAccessor {
    @Nullable Member property(Class<?> type, String name) {
      Method getter = findGetterForProperty(name, type, false);
      return getter != null ? getter : findField(name, type, false);
    }
  }
}
