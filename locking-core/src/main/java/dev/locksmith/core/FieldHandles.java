package dev.locksmith.core;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * Variable handles on the engine's own fields, for objects made per call that keep their atomic
 * state in plain volatile fields rather than in atomic objects of their own.
 */
final class FieldHandles {
  private FieldHandles() {}

  /**
   * The handle of the field {@code name} of type {@code type} in the class {@code lookup} was made
   * in.
   *
   * @throws ExceptionInInitializerError when there is no such field (a class's static initialiser
   *     calls this)
   */
  static VarHandle of(MethodHandles.Lookup lookup, String name, Class<?> type) {
    try {
      return lookup.findVarHandle(lookup.lookupClass(), name, type);
    } catch (ReflectiveOperationException e) {
      throw new ExceptionInInitializerError(e);
    }
  }
}
