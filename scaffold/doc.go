// Package scaffold is the model of a project and of a style: the project
// (its kinds, decorators and watches, scope, pins), what the project file
// and its lock hold and how they are read and checked, and the Style a
// style package fills in (its runtime, access, CI, kind options and files).
// The kinds themselves are package api's; the files a project is made of
// are package render's.
package scaffold
