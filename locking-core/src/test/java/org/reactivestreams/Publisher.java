package org.reactivestreams;

/** The reactive-streams interface, by name only: core must recognise it without depending on it. */
public interface Publisher<T> {}
