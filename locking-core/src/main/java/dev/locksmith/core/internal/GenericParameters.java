package dev.locksmith.core.internal;

import java.lang.reflect.Array;
import java.lang.reflect.GenericArrayType;
import java.lang.reflect.Method;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.Type;
import java.lang.reflect.TypeVariable;
import java.lang.reflect.WildcardType;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;

/**
 * Whether a method overrides or implements a method of a supertype by its parameters, with the
 * supertype's type variables bound as the method's class binds them: {@code handle(Order)} of a
 * class that implements {@code Handler<Order>} implements {@code Handler.handle(T)}, whose erased
 * parameter is {@code Object} (the compiler links the two by a bridge method).
 */
final class GenericParameters {
  private GenericParameters() {}

  /**
   * Whether {@code method}'s parameters are those of {@code candidate}, declared in a supertype of
   * {@code method}'s class, once the supertype's type variables are bound.
   */
  static boolean overrides(Method method, Method candidate) {
    return overrides(method.getDeclaringClass(), method, candidate);
  }

  /**
   * {@link #overrides(Method, Method)} with the type variables bound as {@code type} binds them:
   * for a method that {@code type} inherits from a class that does not implement {@code
   * candidate}'s interface, which {@code type} implements.
   */
  static boolean overrides(Class<?> type, Method method, Method candidate) {
    Class<?>[] actual = method.getParameterTypes();
    if (Arrays.equals(actual, candidate.getParameterTypes())) {
      return true;
    }
    Type[] declared = candidate.getGenericParameterTypes();
    if (declared.length != actual.length) {
      return false;
    }
    Map<TypeVariable<?>, Type> bindings = new HashMap<>();
    bind(type, bindings);
    // Both sides as the class binds them: the method may take a type variable of its own class.
    Type[] own = method.getGenericParameterTypes();
    for (int i = 0; i < actual.length; i++) {
      if (erase(declared[i], bindings, 0) != erase(own[i], bindings, 0)) {
        return false;
      }
    }
    return true;
  }

  /** Records what every supertype of {@code type}'s type variables are bound to. */
  private static void bind(Class<?> type, Map<TypeVariable<?>, Type> bindings) {
    Type superclass = type.getGenericSuperclass();
    if (superclass != null) {
      bind(superclass, bindings);
    }
    for (Type parent : type.getGenericInterfaces()) {
      bind(parent, bindings);
    }
  }

  private static void bind(Type supertype, Map<TypeVariable<?>, Type> bindings) {
    if (supertype instanceof ParameterizedType parameterized
        && parameterized.getRawType() instanceof Class<?> raw) {
      TypeVariable<?>[] variables = raw.getTypeParameters();
      Type[] arguments = parameterized.getActualTypeArguments();
      for (int i = 0; i < variables.length && i < arguments.length; i++) {
        bindings.putIfAbsent(variables[i], arguments[i]);
      }
      bind(raw, bindings);
    } else if (supertype instanceof Class<?> raw) {
      bind(raw, bindings);
    }
  }

  /** The class a type erases to once the bound type variables are replaced. */
  private static Class<?> erase(Type type, Map<TypeVariable<?>, Type> bindings, int depth) {
    if (type instanceof Class<?> c) {
      return c;
    }
    if (type instanceof ParameterizedType parameterized) {
      return erase(parameterized.getRawType(), bindings, depth);
    }
    if (type instanceof GenericArrayType array) {
      Class<?> component = erase(array.getGenericComponentType(), bindings, depth);
      return Array.newInstance(component, 0).getClass();
    }
    if (type instanceof WildcardType wildcard) {
      return erase(wildcard.getUpperBounds()[0], bindings, depth);
    }
    if (type instanceof TypeVariable<?> variable) {
      Type bound = bindings.get(variable);
      // A variable bound to another, up a chain of generic classes; the depth stops a cycle.
      if (bound != null && depth < 32) {
        return erase(bound, bindings, depth + 1);
      }
      Type[] bounds = variable.getBounds();
      return bounds.length == 0 ? Object.class : erase(bounds[0], Map.of(), depth + 1);
    }
    return Object.class;
  }
}
