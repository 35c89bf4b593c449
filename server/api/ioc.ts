// tsoa's IoC hook (tsoa.json "iocModule"): a controller per request, constructed with its app's
// services. Every controller's constructor takes the ApiContext.
import type { Request } from 'express';
import type { IocContainer, IocContainerFactory } from '@tsoa/runtime';
import { apiContextOf, type ApiContext } from './context.js';

type ControllerClass = new (context: ApiContext) => unknown;

export const iocContainer: IocContainerFactory<Request> = (request) => {
  const context = apiContextOf(request);
  return {
    get: (controller: unknown) => new (controller as ControllerClass)(context),
  } as IocContainer;
};
