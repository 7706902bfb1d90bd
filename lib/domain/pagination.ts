export interface PageRequest {
  page: number;
  limit: number;
}

export interface Page<T> {
  data: T[];
  pagination: { page: number; limit: number; total: number; totalPages: number; hasMore: boolean };
}

export function pageOf<T>(data: T[], total: number, { page, limit }: PageRequest): Page<T> {
  const totalPages = Math.ceil(total / limit);
  return { data, pagination: { page, limit, total, totalPages, hasMore: page < totalPages } };
}

export const offsetOf = ({ page, limit }: PageRequest) => (page - 1) * limit;
